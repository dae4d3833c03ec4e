package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// rt43aShellRuns checks a red-team test's premise: shell -c src (src with a
// harmless marker in place of the forbidden command) prints PWNED43, run in
// a fresh temporary directory with HOME pointing at another one. The test
// is skipped where shell is missing.
func rt43aShellRuns(t *testing.T, shell, src string) {
	t.Helper()
	p, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s not installed", shell)
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(p, "-c", src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home)
	if out, _ := cmd.CombinedOutput(); !strings.Contains(string(out), "PWNED43") {
		t.Fatalf("premise: %s -c %q did not print the marker: %q", shell, src, out)
	}
}

// rt43aCheck: shell runs the marker of harmless, and the classifier, reading
// dangerous as that shell runs it, judges it at least want.
func rt43aCheck(t *testing.T, shell, dangerous, harmless string, want Decision) {
	t.Helper()
	rt43aShellRuns(t, shell, harmless)
	if r := Default().ClassifyShell(shell, dangerous); r.Decision < want {
		t.Errorf("ClassifyShell(%s, %q) = %s (rule %q), want at least %s", shell, dangerous, r.Decision, r.Rule, want)
	}
}
