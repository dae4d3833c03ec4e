package classify

import "testing"

// Red team 13: a variable the line set to a literal, expanded with an
// operator (${X:?}, ${X:-y}, ${X-y}, ${X:=y}) and followed by more text,
// is read as a run-time prefix whose bare value is that text alone
// ("etc", relative): `X=/; rm -rf ${X:?}etc` is sandboxed while bash
// deletes /etc (checked: `X=/; echo ${X:?}etc` prints /etc). ${X:?} is
// the idiom scripts use to guard a delete, so it is the natural disguise.
// For HOME this is a regression of fb77e73: `HOME=/; rm -rf ${HOME:-x}etc`,
// `${HOME:?}etc`, `${HOME-x}etc` were forbidden before it and are sandboxed
// now (HOME set on the line is now a plain variable, and plain variables
// already had this gap). The controls: ${X}etc and "$X"etc are forbidden.
//
// Fixed: expandParam evaluates the default, error, assign and alternate
// operators when the line set the variable to a known value
// (expandKnownOp, classify/paramops.go, where the trim operators moved
// from words.go too); an unknown value stays a run-time part.
func TestRedteam13ParamOperatorOnKnownValue(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{"X=/; rm -rf ${X}etc", Forbidden},          // control
		{"HOME=/; rm -rf \"$HOME\"etc", Forbidden},  // control
		{"X=/; rm -rf ${X:?}etc", Forbidden},        // attack
		{"X=/; rm -rf \"${X:-y}etc\"", Forbidden},   // attack
		{"X=/; rm -rf ${X:?}home", Forbidden},       // attack
		{"D=/; rm -rf \"${D:-.}etc\"", Forbidden},   // attack
		{"HOME=/; rm -rf ${HOME:-x}etc", Forbidden}, // regression (fb77e73)
		{"HOME=/; rm -rf ${HOME:?}etc", Forbidden},  // regression (fb77e73)
		{"HOME=/; rm -rf ${HOME-x}etc", Forbidden},  // regression (fb77e73)
	} {
		if got := c.Classify(tc.command); got.Decision < tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
