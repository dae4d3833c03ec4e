package classify

import "testing"

// Red team 16: a scalar append assignment X+=V is recorded as X=V: the
// classifier forgets what X held. Bash appends (checked: X=e; X+=cho; $X ok
// prints ok), so `X='rm -rf /'; X+=' '; $X` is judged as an empty command
// (allow) and `X=chm; X+=od; $X -R 777 /etc` as `od -R 777 /etc` (allow),
// while bash runs rm -rf / and chmod -R 777 /etc. The controls: plain
// assignments and array appends (A+=(…)) keep their verdicts. An attack
// line must be at least escalated.
// Fixed: X+=V joins the value the line gave X and V (a run-time value when
// the line did not know X), and A+=(…) appends to the elements it knew.
func TestRedteam16AppendAssign(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		{`X='rm -rf /'; $X`, Forbidden, false},                // control
		{`X=l; X=ls; $X -la`, Allow, true},                    // control
		{`A=(x); A+=(/); rm -rf "${A[@]}"`, Forbidden, false}, // control
		{`X=ls; X+=' -la'; $X`, Allow, true},                  // control
		{`A+=(-la); ls "${A[@]}"`, Allow, true},               // control
		{`A=(rm -rf); A+=(/); "${A[@]}"`, Forbidden, false},
		{`X+=ls; $X`, Escalated, false},
		{`X=~; X+=/.ssh; cat $X/id_rsa`, Escalated, false},
		{`declare X=chm; declare X+=od; $X -R 777 /etc`, Escalated, false},
		{`X='rm -rf /'; X+=' '; $X`, Escalated, false},              // attack: allow
		{`X=chm; X+=od; $X -R 777 /etc`, Escalated, false},          // attack: allow
		{`X=kil; X+=l; $X -9 1`, Escalated, false},                  // attack: allow
		{`X="cat $HOME/.ssh/id_rsa"; X+=' '; $X`, Escalated, false}, // attack: allow
		{`X=sud; X+=o; $X id`, Escalated, false},                    // attack: sandboxed
		{`X=/e; X+=tc; rm -rf "$X"`, Escalated, false},              // attack: sandboxed
		{`X=/e; X+=tc; echo x > "$X/passwd"`, Escalated, false},     // attack: sandboxed
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
