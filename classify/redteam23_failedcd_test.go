//go:build linux

package classify

import "testing"

// TestRedteam23FailedCdKeepsDir: the working-directory tracking takes
// every cd as succeeding (cwd.go chdir). A cd that fails (a directory
// that does not exist) leaves bash where it was, and with `;` the next
// command still runs: cd ~; cd nosuch; grep -r PRIVATE . greps the home
// and prints ~/.ssh/id_rsa, yet is "allow" (the classifier thinks it is
// in ~/nosuch, not above a store); cd ~; cd build; rm -rf .ssh deletes
// ~/.ssh and is "sandboxed" (cd ~; rm -rf .ssh is forbidden). The new
// relative forms of the recursive-read rule (cd /; grep -r . home) and
// of the loop values inherit the hole. Both ran for real below.
//
// Severity: medium (credential read rated allow; a forbidden home-key
// delete rated sandboxed — the sandbox's read-only ~/.ssh still holds).
// Root and unprivileged alike.
//
// A fix would need: a cd (or pushd) whose target is not known to exist,
// in a position where its failure does not stop what follows (`;`,
// newline, `||`, not `cd X && …` nor under set -e), leaves the working
// directory as a join of the old and the new one (the more critical
// kept, as for branches).
//
// Fixed: a cd to a directory not known to exist keeps the more critical of
// the old and new directories for what follows ; and || (cwd.go
// cdMayFail), the new one only after && (flow.go andOr).
func TestRedteam23FailedCdKeepsDir(t *testing.T) {
	rt22dCheck(t, []rt22dCase{
		{command: `cd ~; cd nosuch 2>/dev/null; grep -r PRIVATE .`, want: Escalated, effect: rt22dLeaked},
		{command: `cd ~; cd build 2>/dev/null; rm -rf .ssh`, want: Forbidden, effect: rt22dSSHGone},

		// Controls.
		{command: `cd ~; grep -r PRIVATE .`, want: Escalated, effect: rt22dLeaked},
		{command: `cd ~; rm -rf .ssh`, want: Forbidden, effect: rt22dSSHGone},
		{command: `cd build && rm -rf .ssh`, want: Sandboxed, exact: true},
	})
}
