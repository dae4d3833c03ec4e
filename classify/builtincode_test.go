package classify

import "testing"

// TestBuiltinCode: compgen -C and -W, and a coprocess fed through its
// descriptor, are judged for the code they run.
func TestBuiltinCode(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`compgen -C "rm -rf /" x`, Forbidden},
		{`compgen -C'rm -rf /' x`, Forbidden},
		{`compgen -c -C "rm -rf /" x`, Forbidden},
		{`compgen -W '$(rm -rf /)' x`, Forbidden},
		{`compgen -W "$words" -- x`, Escalated},
		{`compgen -W "alpha beta" a`, Sandboxed},
		{`compgen -A function`, Sandboxed},
		{`coproc bash`, Escalated},
		{`coproc python3`, Escalated},
		{`coproc bash; echo "rm -rf /" >&"${COPROC[1]}"`, Forbidden},
		{`coproc S { sh; }; printf 'rm -rf /\n' >&${S[1]}`, Forbidden},
		{`coproc S { sh; }; { echo "rm -rf /"; } >&"${S[1]}"`, Forbidden},
		{`coproc S { echo x >&"${S[1]}"; }`, Sandboxed}, // fed by itself: walked once
		{`coproc cat; echo hi >&"${COPROC[1]}"`, Sandboxed},
		{`coproc { sleep 1; }`, Allow},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
