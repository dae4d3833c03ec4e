package classify

import (
	"slices"
	"strings"
	"testing"
)

// rt43bShellRuns checks a red-team test's premise: shell -c src (src with
// a harmless echo PWNED43 in place of rm -rf ~) really runs the marker as
// a command (a line of output that is exactly PWNED43, not the marker
// printed as text). The test is skipped where shell is missing.
func rt43bShellRuns(t *testing.T, shell, src string) {
	t.Helper()
	if out := shellOutput(t, shell, src, nil); !slices.Contains(strings.Split(out, "\n"), "PWNED43") {
		t.Fatalf("premise: %s -c %q did not run the marker: %q", shell, src, out)
	}
}

// rt43bCheck: for each case, shell runs the marker of the harmless
// version (CMD replaced by echo PWNED43), and the classifier, reading the
// dangerous version (CMD replaced by rm -rf ~) as that shell, judges it at
// least want.
func rt43bCheck(t *testing.T, shell string, cases []string, want Decision) {
	t.Helper()
	for _, c := range cases {
		rt43bShellRuns(t, shell, strings.ReplaceAll(c, "CMD", "echo PWNED43"))
		dangerous := strings.ReplaceAll(c, "CMD", "rm -rf ~")
		if r := Default().ClassifyShell(shell, dangerous); r.Decision < want {
			t.Errorf("ClassifyShell(%s, %q) = %s (rule %q), want %s: %s runs rm -rf ~", shell, dangerous, r.Decision, r.Rule, want, shell)
		}
	}
}
