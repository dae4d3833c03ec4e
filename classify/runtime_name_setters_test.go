package classify

import "testing"

// Builtins that set a variable named only at run time (printf -v "$X",
// declare "$X=V", read "$X", mapfile/readarray "$X") may set any variable,
// like an assignment through a nameref whose target is only known at run
// time: `X=ls; printf -v "$N" rm; $X -rf /` runs rm -rf / when N is X, but
// was judged ls -rf /.
// Fixed: after such a call every variable the line knows, and HOME, PWD,
// SHELL, BASH, CDPATH, are run-time values.
func TestRuntimeNamedSetters(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		{`X=ls; printf -v Y rm; $X -la`, Allow, true},                                     // control
		{`X=ls; read -p "$P" -t "$T" Y; $X -la`, Allow, true},                             // control: option values
		{`X=ls; readarray -t -u "$FD" arr; $X -la`, Allow, true},                          // control
		{`f() { local -n out=$1; out=done; }; f RESULT; echo "$RESULT"`, Sandboxed, true}, // control (corpus)
		{`X=ls; printf -v "$N" rm; $X -rf /`, Escalated, false},                           // attack: allow
		{`X=ls; declare "$N=rm"; $X -rf /`, Escalated, false},                             // attack: allow
		{`X=ls; read "$N" <<< rm; $X -rf /`, Escalated, false},                            // attack: allow
		{`X=ls; mapfile -t "$N" < f; $X -rf /`, Escalated, false},                         // attack: allow
		{`X=ls; readarray "$N" < f; $X -rf /`, Escalated, false},                          // attack: allow
		{`HOME=/tmp/h; read "$N" <<< /; rm -rf ~`, Escalated, false},                      // attack: sandboxed
		{`D=/tmp/x; read -r -a "$N" <<< /; rm -rf "$D"`, Escalated, false},                // attack: sandboxed
		{`X=ls; getopts ab "$N"; $X -rf /`, Escalated, false},                             // attack: allow
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
