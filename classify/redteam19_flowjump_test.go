package classify

import "testing"

// return, break and continue end a function body or a loop round where
// they stand: bash never runs what follows them. The analyzer walks on past
// them and takes the assignments after them as the state the body leaves,
// so a benign value assigned after the jump hides the dangerous one bash
// really has. Each attack runs rm -rf / in bash 5.2.
//
// Fixed: after a return, break or continue that may have run (also behind
// builtin/command, in a branch or an && list), the rest of the function or
// loop body is walked as a path that may not be taken.
func TestRedteam19FlowJump(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		// Attacks.
		{`f() { X=rm; return; X=ls; }; f; $X -rf /`, Escalated, false},
		{`f() { X=rm; return 0; X=ls; }; f; $X -rf /`, Escalated, false},
		{`f() { X=rm; false || return; X=ls; }; f; $X -rf /`, Escalated, false},
		{`X=ls; while :; do X=rm; break; X=ls; done; $X -rf /`, Escalated, false},
		{`X=ls; until false; do X=rm; break; X=ls; done; $X -rf /`, Escalated, false},
		{`X=ls; for ((i=0;i<1;i++)); do X=rm; break; X=ls; done; $X -rf /`, Escalated, false},
		{`X=ls; for i in 1; do X=rm; continue; X=ls; done; $X -rf /`, Escalated, false},

		// Controls.
		{`f() { X=rm; X=ls; }; f; $X -la`, Sandboxed, true}, // ls -la with a function call
		{`f() { X=ls; return; }; f; $X -la`, Sandboxed, true},
		{`f() { X=rm; return; }; f; $X -rf /`, Forbidden, true},
		{`for i in a b; do echo "$i"; done`, Allow, true},
		{`X=rm; while :; do $X -rf /; break; done`, Forbidden, true},
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
