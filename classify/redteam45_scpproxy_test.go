package classify

import "testing"

// TestRedteam45ScpProxyCommand: scp and sftp pass -o to the ssh they
// start, so `scp -o ProxyCommand='rm -rf ~' h:f .` runs rm -rf ~ through
// /bin/sh locally before any connection. `ssh -o ProxyCommand=…` is read
// (forbidden, dispatch.go: runSSH), but scp and sftp have no such handler
// (scp is only in escapes.go: execOptions, for -S), so the -o value is not
// read and the line is escalated as file-transfer, not forbidden.
//
// Severity: medium (escalated instead of forbidden).
// Found by red-team round 45 (medium). Fixed: scp and sftp read
// their -o options as ssh does (runSCP, sshOptions).
func TestRedteam45ScpProxyCommand(t *testing.T) {
	rt44bCheck(t, []rt44bCase{
		{argv: []string{"scp", "-o", "ProxyCommand=CMD", "h:f", "."}},
		{argv: []string{"scp", "-oProxyCommand CMD", "h:f", "."}},
		{argv: []string{"sftp", "-o", "ProxyCommand=CMD", "h"}},
	}, Forbidden)
	// Control: a plain copy stays escalated (file-transfer), not forbidden.
	if r := Default().ClassifyShell("bash", "scp -o ConnectTimeout=5 build.tgz host:/srv/"); r.Decision != Escalated {
		t.Errorf("control: scp = %s (%s), want escalated", r.Decision, r.Rule)
	}
}
