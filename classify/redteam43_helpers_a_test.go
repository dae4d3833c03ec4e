package classify

import (
	"strings"
	"testing"
)

// rt43aShellRuns checks a red-team test's premise: shell -c src (src with a
// harmless marker in place of the forbidden command) prints PWNED43, run in
// a fresh temporary directory with HOME pointing at another one. The test
// is skipped where shell is missing.
func rt43aShellRuns(t *testing.T, shell, src string) {
	t.Helper()
	if out := shellOutput(t, shell, src, nil); !strings.Contains(out, "PWNED43") {
		t.Fatalf("premise: %s -c %q did not print the marker: %q", shell, src, out)
	}
}

// rt43aCheck: shell runs the marker of harmless, and the classifier, reading
// dangerous as that shell runs it, judges it at least want.
func rt43aCheck(t *testing.T, shell, dangerous, harmless string, want Decision) {
	t.Helper()
	rt43aShellRuns(t, shell, harmless)
	judgedAtLeast(t, shell, dangerous, want)
}
