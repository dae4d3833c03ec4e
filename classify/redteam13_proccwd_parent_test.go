package classify

import "testing"

// Red team 13: 5807586 resolves /proc/self/cwd to the cd-tracked directory,
// but resolveAlias (classify/paths.go) cleans the path lexically first, so
// /proc/self/cwd/../etc becomes /proc/self/etc, which is no alias and no
// critical path. The kernel resolves the magic link first and then "..":
// after `cd /tmp`, /proc/self/cwd/../etc is /etc (checked: in a real
// directory `ls /proc/self/cwd/../` lists the parent). So deletes and
// writes of /etc, /home, ~/.ssh and /dev/sda through the parent of the
// working directory pass as sandboxed. The controls: the same targets
// through /proc/self/cwd without "..", and `cd build && rm -rf ../dist`,
// are judged as expected.
//
// Fixed: resolveAlias (classify/aliases.go) walks the path as the kernel
// does (walkAbs): ".." before an alias is lexical, the alias is swapped in
// where it is met and ".." after it climbs from the tracked directory;
// cleanTarget walks absolute paths the same way, so /proc/self/root/../etc
// is /etc too.
func TestRedteam13ProcCwdParent(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		atMost  bool
	}{
		{"cd / && rm -rf /proc/self/cwd/etc", Forbidden, false},                    // control
		{"cd /tmp && rm -rf ../etc", Forbidden, false},                             // control
		{"cd build && rm -rf /proc/self/cwd/../dist", Sandboxed, true},             // control
		{"cd /tmp && rm -rf /proc/self/cwd/../etc", Forbidden, false},              // attack
		{"cd /tmp && rm -rf /proc/self/cwd/../home", Forbidden, false},             // attack
		{"cd /tmp && find /proc/self/cwd/../home -delete", Forbidden, false},       // attack
		{"cd ~/src && rm -rf /proc/self/cwd/../.ssh", Forbidden, false},            // attack
		{"cd /tmp && cat /dev/zero > /proc/self/cwd/../dev/sda", Forbidden, false}, // attack
		{"cd /tmp && echo x > /proc/self/cwd/../etc/passwd", Forbidden, false},     // attack
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
