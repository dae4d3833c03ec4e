package classify

import "testing"

// An assignment to a readonly variable fails and the variable keeps its
// value; in bash -c the rest of that line is skipped, the next line runs
// (checked: bash -c $'X=echo; readonly X\nX=ls\n$X hi' prints hi). The
// classifier took the failed assignment as made, so `X=rm; readonly X`
// and then `X=ls` and `$X -rf /` on later lines was judged ls -rf /.
// Fixed: readonly, declare/local/typeset -r make later assignments to the
// variable leave its value as it was.
func TestReadonlyKeepsValue(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		{`X=rm; X=ls; $X -la`, Allow, true},                                         // control
		{`readonly X=ls; $X -la`, Allow, true},                                      // control
		{`readonly -f f; f=rm; $f -rf /`, Forbidden, false},                         // control: -f names functions
		{"X=rm; readonly X\nX=ls\n$X -rf /", Forbidden, false},                      // attack: allow
		{"readonly X=rm\nX=ls\n$X -rf /", Forbidden, false},                         // attack: allow
		{"declare -r X=/\nX=x\nrm -rf \"$X\"", Forbidden, false},                    // attack: sandboxed
		{"f() {\nlocal -r X=sudo 2>/dev/null\nX=ls\n$X id\n}; f", Escalated, false}, // attack: allow
		{"readonly X\nX=ls\n$X -la", Escalated, false},                              // attack: X keeps its value from the environment
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
