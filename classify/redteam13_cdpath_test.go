package classify

import "testing"

// Red team 13: `cd NAME` with CDPATH set searches CDPATH first (bash checks
// its entries before the current directory), so `CDPATH=/home cd alice`
// enters /home/alice and `CDPATH=/ cd etc` enters /etc. The classifier takes
// NAME as relative to the current directory (unknown), so the delete that
// follows is an ordinary sandboxed `rm -rf ./*`. Checked in a real bash.
// The controls: the same directories written out are forbidden, and an
// empty CDPATH (the usual CI guard) stays sandboxed.
//
// Fixed: when the line sets CDPATH (on the cd or earlier) and the target
// is a plain relative name, cdTarget tries each CDPATH entry and the
// current directory and keeps the most critical (cdSeverity); a CDPATH
// only known at run time makes the directory unknown.
func TestRedteam13CdpathTracked(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		atMost  bool
	}{
		{"cd /home/alice && rm -rf ./*", Forbidden, false},           // control
		{"cd /etc && rm -rf *", Forbidden, false},                    // control
		{"CDPATH= cd build && rm -rf ./*", Sandboxed, true},          // control
		{"CDPATH=/home cd alice && rm -rf ./*", Forbidden, false},    // attack
		{"CDPATH=/ cd home && rm -rf ./*", Forbidden, false},         // attack
		{"export CDPATH=/; cd home && rm -rf ./*", Forbidden, false}, // attack
		{"CDPATH=/ cd etc && rm -rf *", Forbidden, false},            // attack
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
