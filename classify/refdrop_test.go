package classify

import "testing"

// After declare +n r / unset -n r, r is a plain variable: word expansion
// and arithmetic read r itself, no longer the old target.
func TestNamerefDroppedUse(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`i=1; declare -n r=i; r=2; echo $((r))`, Allow}, // control
		{`i=1; declare -n r=i; declare +n r; echo $((r+1))`, Allow},
		{`i=1; declare -n r=i; declare +n r; r=/; i=2; rm -rf "$r"`, Forbidden},
		{`i=1; declare -n r=i; unset -n r; r=/; i=2; rm -rf "$r"`, Forbidden},
		{`i=1; declare -n r=i; typeset +n r; r=/; i=2; rm -rf "$r"`, Forbidden},
		{`i=/; declare -n r=i; declare +n r; r=build; rm -rf "$i"`, Forbidden}, // r=build no longer sets i
		{`i=1; declare -n r=i; unset -n r; echo "$r"`, Allow},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
