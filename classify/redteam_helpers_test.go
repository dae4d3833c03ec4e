package classify

import (
	"os/exec"
	"testing"
)

// Helpers the red-team tests share (rounds 47 to 49): whether a premise's
// programs are here, and the verdicts asserted.

// rtHave reports whether every program is installed, logging the first
// that is not (the premise is then not run).
func rtHave(t *testing.T, progs ...string) bool {
	t.Helper()
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			t.Logf("%s not installed: premise not run", p)
			return false
		}
	}
	return true
}

// rtAtLeast requires ClassifyShell for each shell to judge line at least
// want.
func rtAtLeast(t *testing.T, shells []string, line string, want Decision) {
	t.Helper()
	for _, sh := range shells {
		if r := Default().ClassifyShell(sh, line); r.Decision < want {
			t.Errorf("ClassifyShell(%s, %q) = %s (rule %q, command %q), want at least %s", sh, line, r.Decision, r.Rule, r.Command, want)
		}
	}
}

// rtBelow requires ClassifyShell for bash to judge a legitimate line below
// limit (it must keep working).
func rtBelow(t *testing.T, line string, limit Decision) {
	t.Helper()
	if r := Default().ClassifyShell("bash", line); r.Decision >= limit {
		t.Errorf("legitimate %q = %s (rule %q), want below %s", line, r.Decision, r.Rule, limit)
	}
}
