package classify

import "testing"

// Red team 12: the classifier expands `~` as the user's home even after
// the command itself has set HOME, so `HOME=/; rm -rf ~/etc` is read as a
// delete inside the home, while the shell deletes /etc. The same hides a
// disk wipe (`HOME=/dev; dd of=~/sda`). The controls: the same targets
// written out are forbidden, and so is `HOME=/; rm -rf ~/`. The sandbox
// keeps /etc and /dev read-only, so this is the classifier's layer alone.
//
// Fixed: once the line sets HOME (assignment, export/declare/local, read,
// getopts, printf -v, mapfile, a for loop), ~ (at a word's start, and after
// = or : in an assignment-like word such as of=~/sda) and $HOME expand to
// the value set when it is literal (read from a plain here-string too),
// else to a run-time part that dynamic-delete-target judges like $DIR
// (classify/assigns.go). A HOME=x prefix on the command itself is still
// ignored: the shell expands ~ before applying it.
func TestRedteam12TildeAfterHomeReassigned(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{"rm -rf /etc", Forbidden},                         // control
		{"rm -rf /home", Forbidden},                        // control
		{"dd if=/dev/zero of=/dev/sda", Forbidden},         // control
		{"HOME=/; rm -rf ~/", Forbidden},                   // control: held
		{"HOME=/; rm -rf ~/etc", Forbidden},                // attack
		{"export HOME=/; rm -rf ~/home", Forbidden},        // attack
		{"read HOME <<< /; rm -rf ~/etc", Forbidden},       // attack
		{"HOME=/dev; dd if=/dev/zero of=~/sda", Forbidden}, // attack
		{"HOME=/dev; cat /dev/zero > ~/sda", Forbidden},    // attack
	} {
		if got := c.Classify(tc.command); got.Decision < tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
