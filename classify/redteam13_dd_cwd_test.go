package classify

import "testing"

// Red team 13: relative write targets are resolved against an earlier cd
// for redirections, tee, cp, shred (cd /dev && cat /dev/zero > sda is
// forbidden), but dd's of= operand is not: `cd /dev && dd if=/dev/zero
// of=sda` passes as sandboxed. Severity low: the sandbox gives the
// command its own /dev without block devices, so only the classifier's
// layer is missed. The controls: the absolute dd and the relative
// redirection are forbidden, dd of a relative file in a build directory
// stays sandboxed.
//
// Fixed: the disk-wipe rule resolves dd's of= (and the operands of shred
// and the like, and cp/tee's destination) against the cd-tracked directory
// (u.resolve) before asking isBlockDevice, as writeTargets already did.
func TestRedteam13DdRelativeOfAfterCd(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		atMost  bool
	}{
		{"dd if=/dev/zero of=/dev/sda", Forbidden, false},                          // control
		{"cd /dev && cat /dev/zero > sda", Forbidden, false},                       // control
		{"cd build && dd if=/dev/zero of=disk.img bs=1M count=1", Sandboxed, true}, // control
		{"cd /dev && dd if=/dev/zero of=sda", Forbidden, false},                    // attack
		{"cd /dev && dd if=/dev/zero of=./sda", Forbidden, false},                  // attack
		{"cd / && dd if=/dev/zero of=dev/sda", Forbidden, false},                   // attack
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
