package classify

import (
	"strings"
	"testing"
)

// rt42aShellRuns checks a red-team test's premise: shell -c src (src with
// a harmless echo marker in place of rm -rf ~) really runs the marker.
// The test is skipped where shell is missing.
func rt42aShellRuns(t *testing.T, shell, src string) {
	t.Helper()
	if out := shellOutput(t, shell, src, nil); !strings.Contains(out, "PWNED42") {
		t.Fatalf("premise: %s -c %q did not run the marker: %q", shell, src, out)
	}
}

// rt42aCheck: dash and bash run the marker of harmless, and the classifier,
// reading dangerous as each of them, judges it at least want.
func rt42aCheck(t *testing.T, dangerous, harmless string, want Decision) {
	t.Helper()
	for _, shell := range []string{"dash", "bash"} {
		rt42aShellRuns(t, shell, harmless)
		judgedAtLeast(t, shell, dangerous, want)
	}
}
