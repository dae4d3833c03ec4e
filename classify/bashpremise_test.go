package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bashRunsPayload checks a red-team test's premise: bash really runs the
// CMD of tmpl (a touch of a marker put in its place). Without bash it
// checks nothing.
func bashRunsPayload(t *testing.T, tmpl string) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		return
	}
	mark := filepath.Join(t.TempDir(), "ran")
	cmd := strings.ReplaceAll(tmpl, "CMD", "touch "+mark)
	_ = exec.Command(bash, "-c", cmd).Run()
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("bash did not run the payload of %q (test premise)", cmd)
	}
}

// shellOutput runs shell -c src for a red-team test's premise and returns
// what it printed. It runs in a fresh temporary directory, with HOME a
// temporary directory of its own that fill (when given) fills first, and
// env after that. The test is skipped where shell is missing.
func shellOutput(t *testing.T, shell, src string, fill func(home string), env ...string) string {
	t.Helper()
	p, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s not installed", shell)
	}
	home := t.TempDir()
	if fill != nil {
		fill(home)
	}
	cmd := exec.Command(p, "-c", src)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), "HOME="+home), env...)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// judgedAtLeast asserts that the classifier, reading line as shell runs
// it, judges it at least want.
func judgedAtLeast(t *testing.T, shell, line string, want Decision) {
	t.Helper()
	if r := Default().ClassifyShell(shell, line); r.Decision < want {
		t.Errorf("ClassifyShell(%s, %q) = %s (rule %q), want at least %s", shell, line, r.Decision, r.Rule, want)
	}
}
