package agentbox_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestMissingGitOutsideRepositories: a writable root outside every
// repository has its missing .git held so that the command cannot plant a
// repository there, and the hold must not pass for one: go build, which
// stamps version control information when it finds a .git directory,
// failed on the empty directory that used to hold it. The attack: git init
// is refused. The controls: go build works, git says there is no
// repository, and nothing is left behind or reported.
func TestMissingGitOutsideRepositories(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command here")
	}
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	for name, content := range map[string]string{
		"go.mod":  "module example.com/scratch\n\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() { println(\"built\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := []agentbox.Option{agentbox.WithWritableRoots(dir), agentbox.WithWorkingDir(dir),
		agentbox.WithEnv("GOENV=off", "GOTOOLCHAIN=local", "GOCACHE=/tmp/gocache", "GOPATH=/tmp/gopath")}
	// -buildvcs=auto, go build's default, whatever the caller's go env says.
	res := run(t, m, goBin+" build -buildvcs=auto -o app . && ./app", opts...)
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, "built") {
		t.Fatalf("go build outside a repository: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = run(t, m, "git status; echo status=$?; git init -q; echo init=$?", opts...)
	if !strings.Contains(res.Stdout, "status=128") || strings.Contains(res.Stdout, "init=0") {
		t.Errorf("git in the held root: %q %q", res.Stdout, res.Stderr)
	}
	for _, r := range []*agentbox.ExecResult{res} {
		if len(r.Violations) > 0 {
			t.Errorf("violations for agentbox's own hold: %+v", r.Violations)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".git") {
			t.Errorf("left behind in the writable root: %s", e.Name())
		}
	}

	// Inside a repository the hold stays an empty directory, so that git
	// goes on to the enclosing repository.
	repo := hostDir(t)
	sub := filepath.Join(repo, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	// (safe.directory: a root caller's sandbox runs as nobody, and sees the
	// repository as someone else's.)
	res = run(t, m, "git -c safe.directory='*' status --short; echo status=$?", agentbox.WithWritableRoots(sub), agentbox.WithWorkingDir(sub))
	if !strings.Contains(res.Stdout, "status=0") {
		t.Errorf("git in a writable root inside a repository: %q %q", res.Stdout, res.Stderr)
	}
}
