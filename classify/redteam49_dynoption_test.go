package classify

import (
	"testing"
)

// TestRedteam49DynamicOption: matchCommonSafe (rules_allow.go) refuses
// find's -delete, -exec, -fprint … by comparing each argument's literal
// value; a word only known at run time passes, so the action may come from
// a file:
//
//	printf -- '-delete\n' > opts; find ~ $(head -1 opts)
//
// deletes the whole home and is sandboxed (the printf), where `find ~
// -delete` is forbidden (destructive-find): head's output is not followed
// (the line wrote the file, but only cat of it is read back), and the
// find is judged allow. With opts already in the project, `find ~ $(head
// -1 opts)` is allow outright, against the package's claim (doc.go) that
// a word whose value is only known at run time never makes a command
// allow; `find . $(head -1 opts) rm -rf ~ \;` is allow too, and so is
// `sort $(head -1 opts) ~/.bashrc` (sort -o truncating ~/.bashrc).
// matchDestructiveFind and matchDynamicDelete only look at -delete and
// -exec as written.
//
// Severity: high (a forbidden command judged sandboxed; allow for a
// command whose action is only known at run time).
// Found by red-team round 49 (high). Fixed: a line filter of a file the
// line wrote prints its known lines (lineFilterInput: find ~ $(head -1
// opts) is find ~ -delete, forbidden), and a program an option of which
// makes it unsafe is not allow with a word that begins with a run-time
// value (optionChecked).
func TestRedteam49DynamicOption(t *testing.T) {
	line := `printf -- '-delete\n' > opts; find ~ $(head -1 opts)`
	if rtHave(t, "bash", "find", "head") {
		home, work := rt49bHome(t)
		out := rt49bRun(t, "bash", home, work, line)
		if !rt49bSSHGone(home) {
			t.Fatalf("premise: %q did not delete the home (output %q)", line, out)
		}
	}
	rtAtLeast(t, []string{"bash"}, `find ~ -delete`, Forbidden) // control
	rtAtLeast(t, []string{"bash", "sh"}, line, Forbidden)
	// With the option in a file of the project: never allow.
	for _, l := range []string{
		`find ~ $(head -1 opts)`,
		`find . $(head -1 opts) rm -rf ~ \;`,
		`sort $(head -1 opts) ~/.bashrc`,
	} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Sandboxed)
	}
	rtBelow(t, `find . -name '*.go'`, Sandboxed)
}
