package classify

import "testing"

// Red team 16: the case attributes of declare/typeset/local (-l lower, -u
// upper) change every value later assigned to the variable (checked:
// declare -l X=/ETC; echo "$X" prints /etc). The classifier keeps the value
// as written, so `declare -l X=/ROOT/.SSH/ID_RSA; cat "$X"` is judged as
// reading a file that does not exist (allow) while bash reads root's SSH
// key, and `declare -l X=SUDO; $X id` as an unknown program (sandboxed).
// The controls: the lower-case lines are caught, a harmless -l stays allowed.
func TestRedteam16CaseAttribute(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		{`X=/root/.ssh/id_rsa; cat "$X"`, Escalated, false},                    // control
		{`declare -l X=README.MD; cat "$X"`, Allow, true},                      // control
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
