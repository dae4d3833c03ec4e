package classify

import "testing"

// A function the line defines is followed where it is called, but not
// into itself: a recursive call changes nothing in the analyzer's state,
// while in bash it runs the body again with other arguments. Before state
// scoping these lines were escalated (eval-exec); now the analyzer takes
// the value of the outer call only and rates bash's rm -rf / sandboxed.
//
// Fixed: a recursive call walks the bodies once more, with run-time
// arguments, on a maybe path, so what the recursion may change is a
// run-time value.
func TestRedteam19Recursion(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		// Attacks (bash: X=rm after the call).
		{`f() { X=$1; [ -n "$2" ] && f "$2"; }; f ls rm; $X -rf /`, Escalated, false},
		{`f() { X=$1; shift; [ $# -gt 0 ] && f "$@"; }; f ls rm; $X -rf /`, Escalated, false},
		{`f() { X=$1; if [ -n "$2" ]; then f "$2"; fi; }; f ls rm; $X -rf /`, Escalated, false},
		// Mutual recursion: g is busy while f runs.
		{`g() { X=$1; [ -n "$2" ] && f "$2"; }; f() { g "$1"; }; g ls rm; $X -rf /`, Escalated, false},

		// Controls.
		{`f() { X=$1; }; f ls; $X -la`, Sandboxed, true},
		{`f() { X=$1; }; f rm; $X -rf /`, Forbidden, true},
		{`f() { X=$1; [ -n "$2" ] && f "$2"; }; f rm ls; ls -la`, Sandboxed, true},
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
