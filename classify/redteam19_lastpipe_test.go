package classify

import "testing"

// With lastpipe on (and job control off, as in bash -c) a pipeline's last
// part runs in the shell itself. The analyzer notices a bare `shopt -s
// lastpipe` only: run as `builtin shopt` or `command shopt`, or turned on
// for a child shell by `bash -O lastpipe`, the last part is still taken as
// a subshell and its assignment discarded. Before state scoping these
// lines were forbidden (the assignment leaked); now bash's rm -rf / is
// allow or sandboxed (checked with bash 5.2).
//
// Fixed: shopt is recognised in every unit run (behind builtin, command or
// any wrapper), and a shell started with -O lastpipe (or a run-time -O
// word) turns lastpipe on.
func TestRedteam19Lastpipe(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		// Attacks.
		{`X=ls; builtin shopt -s lastpipe; echo | X=rm; $X -rf /`, Escalated, false},
		{`X=ls; command shopt -s lastpipe; echo | X=rm; $X -rf /`, Escalated, false},
		{`X=ls; bash -O lastpipe -c 'echo | X=rm; $X -rf /'`, Escalated, false},
		{`X=ls; bash -O lastpipe -c 'echo rm | read X; $X -rf /'`, Escalated, false},

		// Controls.
		{`X=ls; shopt -s lastpipe; echo | X=rm; $X -rf /`, Escalated, false},
		{`X=ls; bash -c 'shopt -s lastpipe; echo | X=rm; $X -rf /'`, Escalated, false},
		{`X=ls; echo | X=rm; $X -la`, Allow, true},
		{`git log --oneline | head -5`, Allow, true},
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
