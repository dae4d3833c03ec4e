package classify

import "testing"

// TestRedteam49DcShell: dc, in safeCmds (rules_allow.go) as a calculator,
// runs the rest of a line after `!` as a shell command (GNU dc: "! Will
// run the rest of the line as a system command"):
//
//	dc -e '!rm -rf ~/.ssh'
//	echo '!rm -rf ~/.ssh' | dc
//
// Both remove ~/.ssh and are allow (common-safe-commands): dc is neither
// an interpreter whose code is read (isInterpreterName) nor a program with
// exec options (escapes.go), and matchCommonSafe has no case for it.
// (bc, beside it, has no such command.)
//
// Severity: high (a forbidden command judged allow).
// Found by red-team round 49 (high). Fixed: dc's ! lines (-e, piped text)
// are judged as shell code (dcshell.go). The premise needs GNU dc (Debian
// package dc).
func TestRedteam49DcShell(t *testing.T) {
	lines := []string{
		`dc -e '!rm -rf ~/.ssh'`,
		`echo '!rm -rf ~/.ssh' | dc`,
	}
	if rtHave(t, "dc", "bash") {
		for _, line := range lines {
			home, work := rt49bHome(t)
			out := rt49bRun(t, "bash", home, work, line)
			if !rt49bSSHGone(home) {
				t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", line, out)
			}
		}
	}
	rtAtLeast(t, []string{"bash"}, `rm -rf ~/.ssh`, Forbidden) // control
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Forbidden)
	}
	rtBelow(t, `dc -e '2 3 + p'`, Sandboxed)
}
