package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// unixSocketProgram serves and connects to a unix socket in the sandbox's
// private /tmp, as a test server, tmux or Python's forkserver would.
const unixSocketProgram = `import socket
p = "/tmp/agentbox-optin.sock"
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen()
c = socket.socket(socket.AF_UNIX); c.connect(p); a, _ = s.accept()
c.send(b"served"); print(a.recv(6).decode())`

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
}

// TestUnixSocketsOptIn: unix sockets are refused by default and allowed by
// exec --allow-unix-sockets and a manifest's network.unix_sockets.
func TestUnixSocketsOptIn(t *testing.T) {
	needPython(t)
	runEnv(t)
	code, out, errOut := runCLI(t, "exec", "--profile", "ci", "--", "python3", "-c", unixSocketProgram)
	if code == 0 || !strings.Contains(errOut, "Address family not supported") {
		t.Fatalf("default: exit %d, stdout %q, stderr %q; want socket() refused", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "exec", "--profile", "ci", "--allow-unix-sockets", "--json", "--", "python3", "-c", unixSocketProgram)
	if code != 0 || !strings.Contains(out, `"stdout": "served\n"`) || !strings.Contains(out, "unix sockets: ") {
		t.Fatalf("--allow-unix-sockets: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	for _, tc := range []struct {
		manifest string
		want     int
	}{
		{"name: sockets\n", 1},
		{"name: sockets\npermissions: {network: {unix_sockets: true}}\n", 0},
	} {
		code, _, errOut := runCLI(t, "run", "--manifest", writeManifest(t, tc.manifest), "--", "python3", "-c", unixSocketProgram)
		if code != tc.want {
			t.Errorf("run with %q: exit %d, want %d; stderr:\n%s", tc.manifest, code, tc.want, errOut)
		}
	}
}

// TestGitWritesOptIn: .git in a writable root is read-only by default and
// writable with a manifest's filesystem.git_writes, which still keeps the
// hooks read-only.
func TestGitWritesOptIn(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	runEnv(t)
	repo := publicTempDir(t)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("-c", "user.email=a@example.com", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "first")

	commit := "git -c user.email=a@example.com -c user.name=agent -C " + repo + " commit -q --allow-empty -m agent && " +
		"{ echo evil > " + filepath.Join(repo, ".git", "hooks", "pre-commit") + " && exit 9 || exit 0; }"
	for _, tc := range []struct {
		write string
		want  int
		log   string
	}{
		{"{write: [" + repo + "]}", 128, "first\n"},
		{"{write: [" + repo + "], git_writes: true}", 0, "agent\nfirst\n"},
	} {
		m := writeManifest(t, "name: committer\npermissions: {filesystem: "+tc.write+"}\n")
		code, _, errOut := runCLI(t, "run", "--manifest", m, "--approve", "--", "/bin/sh", "-c", commit)
		if code != tc.want {
			t.Errorf("filesystem %s: exit %d, want %d; stderr:\n%s", tc.write, code, tc.want, errOut)
		}
		if got := git("log", "--format=%s"); got != tc.log {
			t.Errorf("filesystem %s: history %q, want %q", tc.write, got, tc.log)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("the agent wrote a hook")
	}

	// exec says what to change when git fails on the read-only .git.
	add := []string{"exec", "--profile", "ci", "--write", repo, "--", "git", "-C", repo, "add", "-A"}
	if code, _, errOut := runCLI(t, add...); code != 128 || !strings.Contains(errOut, "--allow-git-writes lets it") {
		t.Errorf("git add: exit %d, stderr %q; want 128 and the note", code, errOut)
	}
	add = append([]string{"exec", "--allow-git-writes"}, add[1:]...)
	if code, _, errOut := runCLI(t, add...); code != 0 || strings.Contains(errOut, "note:") {
		t.Errorf("git add --allow-git-writes: exit %d, stderr %q", code, errOut)
	}
}

// TestRunScratch: a manifest's scratch directory is writable for the
// agent, and what it writes there never reaches the host.
func TestRunScratch(t *testing.T) {
	runEnv(t)
	dir := publicTempDir(t)
	if err := os.WriteFile(filepath.Join(dir, "kept"), []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// A sandbox that root starts runs as nobody: the directory must be its.
		for _, p := range []string{dir, filepath.Join(dir, "kept")} {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
	}
	m := writeManifest(t, "name: scratcher\npermissions: {filesystem: {scratch: ["+dir+"]}}\n")
	script := "echo agent > " + dir + "/kept && echo new > " + dir + "/new && grep -q agent " + dir + "/kept"
	if code, _, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", script); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "kept")); err != nil || string(b) != "host\n" {
		t.Errorf("the host's file reads %q (%v) after the run", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Error("a file the agent wrote in its scratch directory is on the host")
	}
}

// TestReadAllowListInRootsHome: a root caller's sandbox runs as nobody, so
// a read allow-list entry inside root's home (rarely searchable by others)
// was bound but out of reach: the command did not find what the policy
// let it read. A denied path inside it, and root-only files, stay closed.
func TestReadAllowListInRootsHome(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a root caller's case")
	}
	runEnv(t)
	home := publicTempDir(t)
	if err := os.Chmod(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(proj, "secret"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"file": "readable\n", "secret/key": "SECRET\n"} {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"exec", "--profile", "ci", "--approve", "--workdir", "/", "--read", proj, "--deny-read", filepath.Join(proj, "secret"), "--", "cat"}
	if code, out, errOut := runCLI(t, append(base, filepath.Join(proj, "file"))...); code != 0 || out != "readable\n" {
		t.Errorf("reading an allowed file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, p := range []string{filepath.Join(proj, "secret", "key"), "/etc/shadow"} {
		if code, out, _ := runCLI(t, append(base, p)...); code == 0 || strings.Contains(out, "SECRET") || out != "" {
			t.Errorf("ESCAPE: %s read: exit %d, stdout %q", p, code, out)
		}
	}
}
