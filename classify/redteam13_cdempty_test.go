package classify

import "testing"

// Red team 13: an unquoted `cd $X` whose value is empty or unset is a bare
// `cd`, which goes to the home. The classifier already escalates
// `rm -rf "$X/"` because an empty X makes it `/` (dynamic-delete-target),
// and forbids `cd; rm -rf ./*`, but `cd $X && rm -rf ./*` (a typo, or an
// unset variable) is taken as a delete in an unknown directory:
// sandboxed, while bash empties the home (checked: `unset X; cd $X; pwd`
// prints $HOME). The controls: bare `cd` is forbidden, a quoted "$X" (bash
// stays put on cd "") and a literal directory stay sandboxed.
//
// Fixed: an unquoted cd operand wholly known at run time sets the
// directory to cwdMaybeHome; resolveIn makes paths relative to it run-time
// paths whose bare value is under ~, so deletes of ., ./* (and ~'s
// critical entries) are dynamic-delete-target (topLevelOnly no longer
// takes ~/.ssh for a top-level directory).
func TestRedteam13CdEmptyVarGoesHome(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		atMost  bool
	}{
		{"cd; rm -rf ./*", Forbidden, false},                   // control
		{"cd \"$X\" && rm -rf ./*", Sandboxed, true},           // control
		{"cd build && rm -rf ./*", Sandboxed, true},            // control
		{"cd $X && rm -rf ./*", Escalated, false},              // attack
		{"cd ${X} && rm -rf .", Escalated, false},              // attack
		{"cd ~/src && cd $NOPE && rm -rf *", Escalated, false}, // attack
	} {
		got := c.Classify(tc.command)
		if tc.atMost && got.Decision > tc.want {
			t.Errorf("control %q: %s (rule %q), want at most %s", tc.command, got.Decision, got.Rule, tc.want)
		}
		if !tc.atMost && got.Decision < tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
