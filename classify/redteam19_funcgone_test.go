package classify

import "testing"

// A call to a function the line defined is followed into its body, even
// where bash never runs that body: the function was removed by unset -f
// run through builtin or command (only a bare unset is recognised), or the
// call's own redirection failed (bash then skips the command). The body's benign assignment hides the value bash keeps, and
// rm -rf / is sandboxed (checked with bash 5.2).
//
// Fixed: unset (and read, mapfile …) are recognised behind builtin and
// command, and a call with a redirection that may fail is walked as a path
// that may not be taken.
func TestRedteam19FuncGone(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		// Attacks: bash says "f: command not found" (or the redirection
		// fails), X stays rm.
		{`X=rm; f() { X=ls; }; builtin unset -f f; f; $X -rf /`, Escalated, false},
		{`X=rm; f() { X=ls; }; command unset -f f; f; $X -rf /`, Escalated, false},
		{`X=rm; f() { X=ls; }; f </nonexistent/x; $X -rf /`, Escalated, false},

		// Controls.
		{`X=rm; f() { X=ls; }; unset -f f; f; $X -rf /`, Escalated, false},
		{`X=rm; f() { X=ls; }; f; $X -la`, Sandboxed, true},
		{`X=rm; f() { X=ls; }; eval 'unset -f f'; f; $X -rf /`, Escalated, false},
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
