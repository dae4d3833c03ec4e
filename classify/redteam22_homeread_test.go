//go:build linux

package classify

import "testing"

// TestRedteam22HomeRecursiveRead: credential-access covers a read of a
// credential store or anything in it (cat ~/.ssh/id_rsa, grep -r x
// ~/.ssh, cp -r ~/.ssh x, tar cf - ~/.ssh: escalated), but not a
// recursive read of a directory that holds one: grep -r . ~ prints every
// line of ~/.ssh/id_rsa and is "allow" (common-safe-commands), as are
// rg . ~ and grep -r over /home and /root; tar czf x.tgz ~, cp -r ~ x,
// rsync -a ~/ x, zip -r x.zip ~ and find ~ -type f -exec cat {} + copy or
// print the keys and are "sandboxed". The key leaked for real below (fake
// HOME).
//
// Severity: medium (credential exposure rated allow; the default policy's
// deny-read of ~/.ssh etc. still stops it inside the sandbox, so this is
// the classifier layer only). Affects root and unprivileged callers alike.
//
// A fix would need: a recursive read (grep -r/-R, rg, tar c, cp -r, rsync
// -r/-a, zip -r, find … -exec/xargs of a reader, du excepted) whose
// operand is an ancestor of a credential store (the home, /home, /root,
// /Users, /) judged as credential-access, relative operands resolved
// against the tracked working directory.
//
// Fixed: recursiveread.go readsStoreTree (called by matchCredentialAccess):
// a recursive reader, as data (program, recursing flags, option values,
// pattern and destination operands), or find -exec of a reader, given a
// directory above a store of credpaths.Home is credential-access.
func TestRedteam22HomeRecursiveRead(t *testing.T) {
	rt22dCheck(t, []rt22dCase{
		{command: `grep -r . ~`, want: Escalated, effect: rt22dLeaked},
		{command: `cd ~; grep -r PRIVATE .`, want: Escalated, effect: rt22dLeaked},
		{command: `grep -r . /home /root`, want: Escalated},
		{command: `tar czf x.tgz ~ 2>/dev/null; tar xzOf x.tgz`, want: Escalated, effect: rt22dLeaked},
		{command: `cp -r ~ x; grep -r . x`, want: Escalated, effect: rt22dLeaked, needs: []string{"cp"}},
		{command: `find ~ -type f -exec cat {} +`, want: Escalated, effect: rt22dLeaked},
		{command: `rsync -a ~/ x`, want: Escalated},
		{command: `zip -qr x.zip ~`, want: Escalated},

		// Controls.
		{command: `grep -r . ~/.ssh`, want: Escalated, effect: rt22dLeaked},
		{command: `cp -r ~/.ssh x`, want: Escalated},
		{command: `grep -r TODO .`, want: Allow, exact: true},
		{command: `grep -rn func ./pkg`, want: Allow, exact: true},
		{command: `tar czf src.tgz src`, want: Sandboxed, exact: true},
	})
}
