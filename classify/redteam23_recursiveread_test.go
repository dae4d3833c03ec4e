//go:build linux

package classify

import "testing"

// TestRedteam23RecursiveReadSpellings: recursive reads of the home that
// the new recursive-reader table (recursiveread.go) does not know:
//   - GNU grep's -d recurse / --directories=recurse / --directories
//     recurse is exactly -r; the table only knows -r/-R and
//     --recursive (-drecurse is caught by accident: its cluster holds an
//     r). grep -d recurse PRIVATE ~ prints ~/.ssh/id_rsa and is "allow";
//   - git grep --no-index searches the working directory as plain files
//     (dot directories included): cd ~ && git grep --no-index PRIVATE
//     prints the key and is "allow" (git-read-commands);
//   - find ~ -type f | xargs cat (or xargs -0 grep) reads every file of
//     the home: only find -exec is modelled, this is "sandboxed".
//
// Each leak ran for real below (GNU grep 3.8, git 2.39, fake HOME).
//
// Severity: medium (credential exposure rated allow for grep/git grep;
// the sandbox's deny-read still holds at run time). Root and
// unprivileged alike.
//
// A fix would need: grep's -d/--directories (any abbreviation) with the
// value recurse as a recursing flag; git grep with --no-index (or
// --untracked outside a repository) as a recursive reader of its
// pathspecs / the working directory; find (or fd, rg --files, ls -R)
// whose paths are fed to xargs running a reader judged as find -exec is.
//
// Fixed: grep's -d/--directories with the value recurse (recurseValue),
// git grep --no-index (gitGrep) and xargs fed by find's names (stream.tree)
// in recursiveread.go.
func TestRedteam23RecursiveReadSpellings(t *testing.T) {
	rt22dCheck(t, []rt22dCase{
		{command: `grep -d recurse PRIVATE ~`, want: Escalated, effect: rt22dLeaked},
		{command: `grep --directories=recurse PRIVATE ~`, want: Escalated, effect: rt22dLeaked},
		{command: `grep --directories recurse PRIVATE ~`, want: Escalated, effect: rt22dLeaked},
		{command: `cd ~ && git grep --no-index PRIVATE`, want: Escalated, effect: rt22dLeaked, needs: []string{"git"}},
		{command: `find ~ -type f | xargs cat`, want: Escalated, effect: rt22dLeaked},
		{command: `find ~ -type f -print0 | xargs -0 grep -h PRIVATE`, want: Escalated, effect: rt22dLeaked},

		// Controls: the spellings the table knows, and everyday searches.
		{command: `grep -r PRIVATE ~`, want: Escalated, effect: rt22dLeaked},
		{command: `find ~ -type f -exec cat {} +`, want: Escalated, effect: rt22dLeaked},
		{command: `grep -d recurse TODO src`, want: Allow, exact: true},
		{command: `git grep TODO`, want: Allow, exact: true},
		{command: `find src -name '*.go' | xargs grep -l TODO`, want: Sandboxed, exact: true},
	})
}
