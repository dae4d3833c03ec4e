package classify

import "testing"

// A nameref declared without a target (declare -n r, local -n, typeset -n)
// gets one from the first value it is given, as bash does: declare -n r;
// r=HOME; r=/ sets HOME to /. A target only known at run time (r=$X, or
// declare -n r=$X) may be any variable, HOME among them: what follows is
// judged with the line's variables only known at run time.
func TestNamerefBoundLater(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`rm -rf ~/etc`, Sandboxed},                         // control
		{`declare -n r=HOME; r=/; rm -rf ~/etc`, Forbidden}, // control
		{`declare -n r=$X; echo hi`, Allow},                 // control
		{`declare -n r; r=D; r=build; rm -rf "$D"`, Sandboxed},
		{`declare -n r; r=HOME; r=/; rm -rf ~/etc`, Forbidden},
		{`f() { local -n r; r=HOME; r=/; rm -rf ~/etc; }; f`, Forbidden},
		{`typeset -n r; r=HOME; r=/; rm -rf ~/etc`, Forbidden},
		{`f() { local -n r; r=HOME; r=/; }; f; rm -rf ~/etc`, Forbidden},
		{`declare -n r; r+=HOME; r=/; rm -rf ~/etc`, Forbidden},
		{`declare -n r; export r=HOME; r=/; rm -rf ~/etc`, Forbidden},
		{`declare -n r; r=HOME r=/; rm -rf ~/etc`, Forbidden},
		{`r=HOME; declare -n r; r=/; rm -rf ~/etc`, Forbidden},
		{`declare -n r; r=D; r=/; rm -rf "$D"`, Forbidden},
		{`declare -n r; read r <<< HOME; r=/; rm -rf ~/etc`, Forbidden}, // read names the target as r=HOME does
		{`declare -n r; r=$X; r=/; rm -rf ~/etc`, Escalated},
		{`declare -n r=$X; r=/; rm -rf ~/etc`, Escalated},
		{`declare -n r; r=/; rm -rf ~/etc`, Escalated},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
