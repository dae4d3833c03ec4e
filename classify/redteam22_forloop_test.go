//go:build linux

package classify

import "testing"

// TestRedteam22ForLoopValues: the variable of a `for NAME in WORDS` loop
// (and `select`) is always a run-time value (flow.go: varVal{item: …}),
// even when every word is a literal the line spells out. Every rule that
// looks at a path then loses it: `for f in ~/.ssh/id_rsa; do cat "$f";
// done` prints the private key and is "allow" (`f=~/.ssh/id_rsa; cat
// "$f"` is escalated, credential-access); `for f in
// ~/.ssh/authorized_keys; do echo k >> "$f"; done` plants a key and is
// "sandboxed" (the plain redirection is forbidden,
// output-redirect-system); `cd ~; for f in .ssh; do rm -rf "$f"; done`
// deletes ~/.ssh and is "sandboxed" (the "never-empty relative loop word"
// rule of dynamic-delete-target assumes a relative word is harmless, but
// the working directory is the home); text appended to ~/.bashrc through
// the loop variable is not judged as if it ran. Each attack was run for
// real below (bash 5.2, fake HOME).
//
// Severity: high (a credential read rated allow, a forbidden write and a
// forbidden delete rated sandboxed, payloads in plain sight; the sandbox's
// deny-read and read-only home are then the only layer). Affects root and
// unprivileged callers alike (pure classifier).
//
// A fix would need: while walking the loop body, try each literal word of
// the list as the variable's value (as a branch: the worst verdict wins),
// keeping the run-time value only for words with run-time parts; a
// relative word must be resolved against the working directory before
// being taken as harmless.
//
// Fixed: flow.go loopValues/loop judge the body once with each literal
// word (up to maxLoopValues, non-relative ones first) as a known value,
// relative words resolved against the tracked working directory where they
// are used, plus the run-time value for globs, run-time words and words
// past the bound.
func TestRedteam22ForLoopValues(t *testing.T) {
	rt22dCheck(t, []rt22dCase{
		{command: `for f in ~/.ssh/id_rsa; do cat "$f"; done`, want: Escalated, effect: rt22dLeaked},
		{command: `for f in a ~/.ssh/id_rsa; do cat "$f"; done 2>/dev/null`, want: Escalated, effect: rt22dLeaked},
		{command: `select f in ~/.ssh/id_rsa; do cat "$f"; break; done <<< 1`, want: Escalated, effect: rt22dLeaked},
		{command: `for f in ~/.ssh/id_rsa; do cp "$f" k; done; cat k`, want: Escalated, effect: rt22dLeaked},
		{command: `for f in ~/.ssh/authorized_keys; do echo k >> "$f"; done`, want: Forbidden},
		{command: `cd ~; for f in .ssh; do rm -rf "$f"; done`, want: Forbidden, effect: rt22dSSHGone},
		{command: `for f in ~/.bashrc; do echo "rm -rf ~/.ssh" >> "$f"; done`, want: Forbidden, effect: rt22dSSHGone, after: `bash -i -c true`},

		// Controls: the same commands without the loop, and everyday loops.
		{command: `f=~/.ssh/id_rsa; cat "$f"`, want: Escalated},
		{command: `echo k >> ~/.ssh/authorized_keys`, want: Forbidden},
		{command: `cd ~; rm -rf .ssh`, want: Forbidden},
		{command: `echo "rm -rf ~/.ssh" >> ~/.bashrc`, want: Forbidden},
		{command: `for f in a.txt b.txt; do cat "$f"; done`, want: Allow, exact: true},
		{command: `for f in *.txt; do wc -l "$f"; done`, want: Allow, exact: true},
		{command: `for d in build dist; do rm -rf "$d"; done`, want: Sandboxed, exact: true},
	})
}
