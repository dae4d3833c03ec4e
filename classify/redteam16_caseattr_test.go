package classify

import "testing"

// Red team 16: the case attributes of declare/typeset/local (-l lower, -u
// upper) change every value later assigned to the variable (checked:
// declare -l X=/ETC; echo "$X" prints /etc). The classifier keeps the value
// as written, so `declare -l X=/ROOT/.SSH/ID_RSA; cat "$X"` is judged as
// reading a file that does not exist (allow) while bash reads root's SSH
// key, and `declare -l X=SUDO; $X id` as an unknown program (sandboxed).
// The controls: the lower-case lines are caught, a harmless -l stays allowed.
// Fixed: -l, -u and -c are recorded (+l and the like take them away) and
// convert every later value the line gives the variable; two at once, or
// an option word only known at run time, leave the value to run time.
func TestRedteam16CaseAttribute(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		{`X=/root/.ssh/id_rsa; cat "$X"`, Escalated, false}, // control
		{`declare -l X=README.MD; cat "$X"`, Allow, true},   // control
		{`declare -u X=ls; $X -la`, Sandboxed, true},        // control: LS
		{`declare -l X; declare +l X; X=/ROOT/.SSH/ID_RSA; cat "$X"`, Allow, true},
		{`declare -c X=SUDO; $X id`, Sandboxed, true}, // control: Sudo
		{`declare -u X; X=/root/.ssh/id_rsa; declare -l X; X=/ROOT/.SSH/ID_RSA; cat "$X"`, Escalated, false},
		{`declare -lu X=SUDO; $X id`, Escalated, false},
		{`declare "$O" X=SUDO; $X id`, Escalated, false},
		{`declare -l A=(RM -RF /); "${A[@]}"`, Forbidden, false},
		{`declare -l X=/ROOT/.SSH/ID_RSA; cat "$X"`, Escalated, false},         // attack: allow
		{`declare -l X="$HOME/.SSH/ID_RSA"; cat "$X"`, Escalated, false},       // attack: allow
		{`typeset -l X; X=/ROOT/.AWS/CREDENTIALS; cat "$X"`, Escalated, false}, // attack: allow
		{`declare -l X=SUDO; $X id`, Escalated, false},                         // attack: sandboxed
		{`declare -l X=RM; $X -rf /`, Escalated, false},                        // attack: sandboxed
		{`declare -l X=GIT; $X push`, Escalated, false},                        // attack: sandboxed
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
