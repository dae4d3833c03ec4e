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

// Helpers of red-team round 58, helper a. Every real run gets a fake home
// (t.TempDir) holding ~/.ssh/id_rsa and a working directory beside it; the
// environment of a run is built here whole (HOME included, the real home
// never named), the caller's extra variables appended. The harmless marker
// an attack's premise checks is the removal of that fake ~/.ssh.

// rt58aSecret is the text of the fake private key.
const rt58aSecret = "RT58A-PRIVATE-KEY"

// rt58aNeed skips the test unless every program is installed, naming the
// Debian package that brings it.
func rt58aNeed(t *testing.T, pkg string, progs ...string) {
	t.Helper()
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed (Debian package %s): premise cannot run", p, pkg)
		}
	}
}

// rt58aHome makes the fake home (with ~/.ssh/id_rsa) and the working
// directory.
func rt58aHome(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte(rt58aSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, work
}

// rt58aRun runs `bash -c line` in work with the fake home, standard input
// empty, and returns the combined output. SCREENDIR keeps a screen
// session's socket in a directory of the test's own, TMUX_TMPDIR a tmux
// server's.
func rt58aRun(t *testing.T, home, work, line string, extra ...string) string {
	t.Helper()
	if !strings.HasPrefix(home, os.TempDir()) || !strings.HasPrefix(work, os.TempDir()) {
		t.Fatalf("refusing to run with home %q or dir %q outside %s", home, work, os.TempDir())
	}
	sd := filepath.Join(home, ".rt58a-screen")
	if err := os.MkdirAll(sd, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = work
	cmd.Env = append([]string{"HOME=" + home, "LANG=C.UTF-8", "TERM=dumb", "TMPDIR=" + work, "SCREENDIR=" + sd, "TMUX_TMPDIR=" + work,
		"PATH=/usr/local/bin:/usr/bin:/bin"}, extra...)
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second // a grandchild holding the output does not hang the test
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// rt58aGone reports whether the fake home's ~/.ssh was removed.
func rt58aGone(home string) bool {
	_, err := os.Stat(filepath.Join(home, ".ssh"))
	return os.IsNotExist(err)
}

// rt58aPremise runs line, then (when not empty) after, in one fresh fake
// home and fails the test unless ~/.ssh is gone at the end; it also
// requires that after alone, in another fresh home, leaves ~/.ssh in
// place (so the removal is the line's doing).
func rt58aPremise(t *testing.T, line, after string, extra ...string) {
	t.Helper()
	home, work := rt58aHome(t)
	out := rt58aRun(t, home, work, line, extra...)
	if after != "" {
		out += rt58aRun(t, home, work, after, extra...)
	}
	if !rt58aGone(home) {
		t.Fatalf("premise: %q then %q did not remove ~/.ssh (output %q)", line, after, out)
	}
	if after != "" {
		home, work = rt58aHome(t)
		if out := rt58aRun(t, home, work, after, extra...); rt58aGone(home) {
			t.Fatalf("premise: %q alone removed ~/.ssh (output %q)", after, out)
		}
	}
}
