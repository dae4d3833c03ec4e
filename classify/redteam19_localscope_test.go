package classify

import "testing"

// After a function call the analyzer puts back what the variables the
// body declared local were. Bash keeps some of those changes: local -g and
// declare with an option only known at run time (-g) set the global, and
// unset run in a callee on the caller's local removes that local (bash's
// dynamic scoping, localvar_unset off), so the caller's later assignment
// sets the global. The analyzer restores the old benign value; bash runs
// rm -rf / (checked with bash 5.2).
//
// Fixed: local -g is global, and a local declared with an option only
// known at run time or unset by a callee is joined with the value before
// the call, not put back.
func TestRedteam19LocalScope(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		// Attacks.
		{`f() { local -g X=rm; }; X=ls; f; $X -rf /`, Escalated, false},
		{`o=-g; f() { declare $o X=rm; }; X=ls; f; $X -rf /`, Escalated, false},
		{`f() { declare "$1" X=rm; }; X=ls; f -g; $X -rf /`, Escalated, false},
		{`g() { unset X; }; f() { local X=a; g; X=rm; }; X=ls; f; $X -rf /`, Escalated, false},

		// Controls: really local, X is ls again.
		{`f() { local X=rm; }; X=ls; f; $X -la`, Sandboxed, true},
		{`f() { declare X=rm; }; X=ls; f; $X -la`, Sandboxed, true},
		{`f() { declare -g X=rm; }; X=ls; f; $X -rf /`, Forbidden, true},
		{`f() { local X=a; unset X; X=rm; }; X=ls; f; $X -la`, Sandboxed, true},
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
