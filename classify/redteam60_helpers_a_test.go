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

// Helpers of red-team round 60, helper a. Every real run gets a fake home
// (t.TempDir) holding ~/.ssh/id_rsa and a working directory beside it; the
// environment of a run is built here whole (HOME included, the real home
// never named), the caller's extra variables appended. The harmless marker
// an attack's premise checks is the removal of that fake ~/.ssh.

// rt60aNeed skips the test unless every program is installed, naming the
// Debian package that brings it.
func rt60aNeed(t *testing.T, pkg string, progs ...string) {
	t.Helper()
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed (Debian package %s): premise cannot run", p, pkg)
		}
	}
}

// rt60aHome makes the fake home (with ~/.ssh/id_rsa) and the working
// directory.
func rt60aHome(t *testing.T) (home, work string) {
	t.Helper()
	home, work = t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("RT60A-PRIVATE-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, work
}

// rt60aRun runs `bash -c line` in work with the fake home, standard input
// empty, and returns the combined output.
func rt60aRun(t *testing.T, home, work, line string, extra ...string) string {
	t.Helper()
	if !strings.HasPrefix(home, os.TempDir()) || !strings.HasPrefix(work, os.TempDir()) {
		t.Fatalf("refusing to run with home %q or dir %q outside %s", home, work, os.TempDir())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = work
	cmd.Env = append([]string{"HOME=" + home, "LANG=C.UTF-8", "TERM=dumb", "TMPDIR=" + work,
		"PATH=/usr/local/bin:/usr/bin:/bin"}, extra...)
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second // a grandchild holding the output does not hang the test
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// rt60aGone reports whether the fake home's ~/.ssh was removed.
func rt60aGone(home string) bool {
	_, err := os.Stat(filepath.Join(home, ".ssh"))
	return os.IsNotExist(err)
}

// rt60aPremise runs line in a fresh fake home and fails the test unless
// ~/.ssh is gone afterwards; then it runs control (the same line with a
// harmless payload) in another fresh home and fails the test if that
// removed ~/.ssh (so the removal is the planted code's doing). Every
// "~/.ssh" of the line is first replaced by the fake home's absolute
// path: some tools (tox 3, for one) drop HOME from the environment of
// what they run, and a shell's ~ then names the real home.
func rt60aPremise(t *testing.T, line, control string, extra ...string) {
	t.Helper()
	home, work := rt60aHome(t)
	run := strings.ReplaceAll(line, "~/.ssh", filepath.Join(home, ".ssh"))
	if out := rt60aRun(t, home, work, run, extra...); !rt60aGone(home) {
		t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", run, out)
	}
	if control != "" {
		home, work = rt60aHome(t)
		control = strings.ReplaceAll(control, "~/.ssh", filepath.Join(home, ".ssh"))
		if out := rt60aRun(t, home, work, control, extra...); rt60aGone(home) {
			t.Fatalf("premise: harmless %q removed ~/.ssh (output %q)", control, out)
		}
	}
}

// rt60aPyModule reports whether the python3 the premises find (on
// rt60aRun's PATH) can import the module.
func rt60aPyModule(mod string) ([]byte, error) {
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", "python3 -c 'import "+mod+"'")
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}
	return cmd.CombinedOutput()
}
