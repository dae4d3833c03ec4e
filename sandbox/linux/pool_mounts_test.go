//go:build linux

package linux

import "testing"

// TestMountStamp: a stamp reports a change only when it cannot tell (no
// mountinfo), and none for an init used at once (nil) or a table that did
// not change (here: no test of this package mounts in its own namespace;
// TestWarmInitSeesLateMounts changes one).
func TestMountStamp(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stamp *mountStamp
		want  bool
	}{
		{"none", nil, false},
		{"unknown", &mountStamp{fd: -1}, true},
		{"unchanged", newMountStamp(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.stamp.close()
			for i := range 2 {
				if got := tc.stamp.changed(); got != tc.want {
					t.Errorf("look %d: changed() = %v, want %v", i, got, tc.want)
				}
			}
		})
	}
}
