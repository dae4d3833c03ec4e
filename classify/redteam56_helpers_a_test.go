package classify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Helpers of red-team round 56, helper a. Every real run gets a fake home
// (t.TempDir) holding ~/.ssh/id_rsa and a working directory beside it; the
// environment of a run is built here whole (HOME included, the real home
// never named), the caller's extra variables appended.

// rt56aSecret is the text of the fake private key.
const rt56aSecret = "RT56A-PRIVATE-KEY"

// rt56aHome makes the fake home (with ~/.ssh/id_rsa) and the working
// directory.
func rt56aHome(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte(rt56aSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, work
}

// rt56aRun runs `bash -c line` in work with the fake home, standard input
// empty, and returns the combined output. TMUX_TMPDIR keeps a tmux
// server's socket in the working directory.
func rt56aRun(t *testing.T, home, work, line string, extra ...string) string {
	t.Helper()
	if !strings.HasPrefix(home, os.TempDir()) || !strings.HasPrefix(work, os.TempDir()) {
		t.Fatalf("refusing to run with home %q or dir %q outside %s", home, work, os.TempDir())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = work
	cmd.Env = append([]string{"HOME=" + home, "LANG=C.UTF-8", "TERM=dumb", "TMPDIR=" + work, "TMUX_TMPDIR=" + work,
		"GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"PATH=/usr/local/bin:/usr/bin:/bin"}, extra...)
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second // a grandchild holding the output does not hang the test
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// rt56aGone reports whether the fake home's ~/.ssh was removed.
func rt56aGone(home string) bool {
	_, err := os.Stat(filepath.Join(home, ".ssh"))
	return os.IsNotExist(err)
}

// rt56aPremise runs line in a fresh fake home and fails the test unless it
// removed ~/.ssh.
func rt56aPremise(t *testing.T, line string) {
	t.Helper()
	home, work := rt56aHome(t)
	out := rt56aRun(t, home, work, line)
	if !rt56aGone(home) {
		t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", line, out)
	}
}
