package classify

import (
	"os"
	"testing"
)

// TestRedteam45SuRepeatedCommand: su and runuser (util-linux) parse their
// options with getopt_long in permuting mode: -c may follow the user
// name, and when -c is given twice the last one is run. `su -c true root
// -c 'rm -rf ~'` runs rm -rf ~ as root. The classifier takes the first
// -c only (dispatch.go: runSu judges the first -c/--command string and
// returns), judges `true`, and the line is escalated for su-privilege, not
// forbidden.
//
// Severity: medium (escalated instead of forbidden).
// Found by red-team round 45 (medium). Fixed: runSu judges every
// -c, not the first only.
func TestRedteam45SuRepeatedCommand(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the premise runs su/runuser as root without a password")
	}
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"su", "-c", "true", "root", "-c", "CMD"}},
		{argv: []string{"runuser", "-c", "true", "root", "-c", "CMD"}},
	}, Forbidden)
	// Control: su with one command stays escalated, not forbidden.
	if r := Default().ClassifyShell("bash", "su -c 'systemctl restart nginx' root"); r.Decision != Escalated {
		t.Errorf("control: su -c 'systemctl restart nginx' root = %s (%s), want escalated", r.Decision, r.Rule)
	}
}
