//go:build linux

package attack_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// gitEnv gives git an identity and a home of the test's choosing, with no
// system or global configuration.
func gitEnv(home string) []string {
	return []string{
		"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.invalid",
		"GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.invalid",
	}
}

// TestLegitimateWork: what agents must be able to do under CIConfig with a
// writable root. Each case is one sandboxed shell command whose output is
// checked, plus what the host must see afterwards.
func TestLegitimateWork(t *testing.T) {
	t.Parallel()
	goBin, _ := exec.LookPath("go")
	// Committing needs writes inside .git, which is read-only by default.
	cfg := ciConfig()
	cfg.Filesystem.AllowGitWrites = true
	gitWriter := newManager(t, cfg)
	cases := []struct {
		name   string
		setup  func(t *testing.T, w string)
		script string
		env    func(w string) []string
		want   string
		host   func(t *testing.T, w string)
	}{
		{
			name:   "write_and_read",
			script: `echo hello > "$W/f.txt" && cat "$W/f.txt" && mkdir -p "$W/a/b" && mv "$W/f.txt" "$W/a/b/g.txt" && ls "$W/a/b"`,
			want:   "hello\ng.txt",
			host: func(t *testing.T, w string) {
				if b, err := os.ReadFile(filepath.Join(w, "a/b/g.txt")); err != nil || string(b) != "hello\n" {
					t.Errorf("host sees %q, %v", b, err)
				}
			},
		},
		{
			name:   "python",
			script: `/usr/bin/python3 -c 'import json,sys,tempfile,pathlib; tempfile.TemporaryFile().write(b"x"); pathlib.Path(sys.argv[1], "out.json").write_text(json.dumps({"sum": sum(range(10))})); print(pathlib.Path(sys.argv[1], "out.json").read_text())' "$W"`,
			want:   `{"sum": 45}`,
		},
		{
			name: "gcc",
			setup: func(t *testing.T, w string) {
				writeFile(t, filepath.Join(w, "hello.c"), "#include <stdio.h>\nint main(void){printf(\"hello from C %d\\n\", 6*7);return 0;}\n", 0o644)
			},
			script: `cd "$W" && gcc -O2 -o hello hello.c && ./hello`,
			want:   "hello from C 42",
		},
		{
			name:   "go_version",
			script: `"$GO" version`,
			want:   "go version go1.",
		},
		{
			name:   "pipes",
			script: `printf 'b\na\nc\n' | sort | tr a-z A-Z | head -n 2 | paste -sd, -`,
			want:   "A,B",
		},
		{
			// Tools open the standard streams by name (tee /dev/stderr,
			// curl -D /dev/stderr, > /dev/stdout): agentbox's pipes must
			// open for the sandbox's user, also when root started it.
			name:   "streams_by_name",
			script: `echo to-stdout > /dev/stdout && echo to-stderr > /dev/stderr && echo via-tee | tee /dev/stderr >/dev/null && echo ok`,
			want:   "to-stdout\nok",
		},
		{
			name:   "private_tmp",
			script: `echo private > /tmp/agentbox-attack-private && cat /tmp/agentbox-attack-private && ls -A /tmp | wc -l`,
			want:   "private\n1",
			host: func(t *testing.T, w string) {
				if _, err := os.Stat("/tmp/agentbox-attack-private"); err == nil {
					t.Error("the sandbox's private /tmp file is on the host")
				}
			},
		},
		{
			name:   "git",
			script: `cd "$W" && git init -q && echo code > main.txt && git add main.txt && git commit -q -m first && git log --oneline | wc -l && git status --porcelain | wc -l`,
			env:    func(w string) []string { return gitEnv(w) },
			want:   "1\n0",
			host: func(t *testing.T, w string) {
				out, err := exec.Command("git", "-C", w, "-c", "safe.directory=*", "log", "--format=%s").Output()
				if err != nil || strings.TrimSpace(string(out)) != "first" {
					t.Errorf("host git log: %q, %v", out, err)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.name == "go_version" && goBin == "" {
				t.Skip("no go command")
			}
			w := newDir(t, 0o755)
			if c.setup != nil {
				c.setup(t, w)
			}
			env := []string{"W=" + w, "GO=" + goBin}
			if c.env != nil {
				env = append(env, c.env(w)...)
			}
			res, err := gitWriter.Exec(context.Background(), c.script, agentbox.WithWritableRoots(w),
				agentbox.WithEnv(env...), agentbox.WithWorkingDir(w))
			if err != nil {
				t.Fatalf("Exec: %v", err)
			}
			if res.ExitCode != 0 || !strings.Contains(res.Stdout, c.want) {
				t.Fatalf("exit %d, stdout %q (want %q), stderr %q", res.ExitCode, res.Stdout, c.want, res.Stderr)
			}
			if c.host != nil {
				c.host(t, w)
			}
		})
	}
}

// TestWritableRootUnderTmp: a writable root in the host's /tmp is bound over
// the sandbox's private /tmp, and writes there reach the host.
func TestWritableRootUnderTmp(t *testing.T) {
	t.Parallel()
	w, err := os.MkdirTemp("/tmp", "agentbox-attack-root-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(w)
	if err := os.Chmod(w, 0o755); err != nil {
		t.Fatal(err)
	}
	runProbes(t, ciMgr, []probe{control("write", "write:"+w+"/f.txt", "")}, agentbox.WithWritableRoots(w))
	if b, err := os.ReadFile(filepath.Join(w, "f.txt")); err != nil || string(b) != writeMarker {
		t.Errorf("host sees %q, %v", b, err)
	}
}
