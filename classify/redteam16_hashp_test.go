package classify

import "testing"

// Red team 16: `hash -p PATH NAME` makes bash run PATH whenever NAME is
// the program word (checked: hash -p /bin/echo x; x hi prints hi). hash is
// in safeCmds (rules_allow.go) and no handler records the binding, so
// `hash -p /bin/rm ls; ls -rf /` is judged as `ls -rf /` (allow) while
// bash runs /bin/rm -rf /. The controls: plain hash calls stay allowed.
// Fixed: hash -p bindings are recorded (hash -d and -r forget them) and a
// later use of the name is judged as the path it was bound to.
func TestRedteam16HashP(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		{`hash -r`, Allow, true},                                // control
		{`hash ls; ls -la`, Allow, true},                        // control
		{`/bin/rm -rf /`, Forbidden, false},                     // control
		{`hash -p /bin/rm ls; hash -r; ls -la`, Allow, true},    // control
		{`hash -p /bin/rm ls; hash -d ls; ls -la`, Allow, true}, // control
		{`hash "$T" 2>/dev/null`, Allow, true},                  // control
		{`hash -rp /bin/rm ls; ls -rf /`, Forbidden, false},
		{`hash -p /bin/rm ls; command ls -rf /`, Forbidden, false},
		{`hash -p "$P" ls; ls -la`, Escalated, false},
		{`hash -p /bin/rm "$N"; ls -la`, Escalated, false},
		{`hash "$O" /bin/rm ls; ls -la`, Escalated, false},
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
