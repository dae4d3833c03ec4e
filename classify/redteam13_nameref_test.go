package classify

import "testing"

// Red team 13: since fb77e73 `~` and $HOME follow a HOME the line sets
// (HOME=/; rm -rf ~/etc is forbidden), but an assignment through a nameref
// (`declare -n r=HOME; r=/`, `typeset -n`, `local -n` in a function, and
// `read r`/`printf -v r` on the nameref) sets HOME without the classifier
// noticing: `~/etc` is still read as a path in the user's home (sandboxed)
// and `of=~/sda` as a file there, while bash deletes /etc or writes
// /dev/sda (checked: `declare -n r=HOME; r=/; echo ~/etc` prints /etc).
// The controls: the direct assignments are forbidden.
//
// Fixed: decl records a nameref declared with a literal name (analyzer.refs
// maps r → HOME), and setVar (so assignments, read, printf -v, getopts,
// for) and the names of assignment words follow it (refName) to the
// variable set; a nameref whose target is known only at run time keeps
// the old handling (its value unknown).
func TestRedteam13NamerefHome(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{"HOME=/; rm -rf ~/etc", Forbidden},                                // control
		{"HOME=/dev; dd if=/dev/zero of=~/sda", Forbidden},                 // control
		{"declare -n r=HOME; r=/; rm -rf ~/etc", Forbidden},                // attack
		{"typeset -n r=HOME; r=/; rm -rf ~/etc", Forbidden},                // attack
		{"f() { local -n r=HOME; r=/; }; f; rm -rf ~/etc", Forbidden},      // attack
		{"declare -n r=HOME; read r <<< /; rm -rf ~/etc", Escalated},       // attack
		{"declare -n r=HOME; printf -v r /; rm -rf ~/etc", Escalated},      // attack
		{"typeset -n r=HOME; r=/dev; dd if=/dev/zero of=~/sda", Forbidden}, // attack
	} {
		if got := c.Classify(tc.command); got.Decision < tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
