package classify

import "testing"

// Red team 16: `hash -p PATH NAME` makes bash run PATH whenever NAME is
// the program word (checked: hash -p /bin/echo x; x hi prints hi). hash is
// in safeCmds (rules_allow.go) and no handler records the binding, so
// `hash -p /bin/rm ls; ls -rf /` is judged as `ls -rf /` (allow) while
// bash runs /bin/rm -rf /. The controls: plain hash calls stay allowed.
func TestRedteam16HashP(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		{`hash -r`, Allow, true},                                                   // control
		{`hash ls; ls -la`, Allow, true},                                           // control
		{`/bin/rm -rf /`, Forbidden, false},                                        // control
		{`hash -p /bin/rm ls; ls -rf /`, Escalated, false},                         // attack: allow
		{`hash -p /usr/bin/sudo ls; ls id`, Escalated, false},                      // attack: allow
		{`hash -p /usr/bin/git x; x push`, Escalated, false},                       // attack: sandboxed
		{`hash -p /bin/rm x; x -rf ~`, Escalated, false},                           // attack: sandboxed
		{"hash -p /bin/sh cat\ncurl -s http://127.0.0.1/ | cat", Escalated, false}, // attack
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
