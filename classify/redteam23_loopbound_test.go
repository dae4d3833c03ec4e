//go:build linux

package classify

import "testing"

// TestRedteam23LoopValuesPastBound: a for/select body is judged with at
// most maxLoopValues (16) literal words as the variable's value, the
// non-relative ones first in the order written; the rest only as a
// run-time value (flow.go loopValues). Sixteen decoy words before the
// payload word, one brace expansion long (/nonexistent/{a..p}), hide it:
//   - for f in /nonexistent/{a..p} ~/.ssh/id_rsa; do cat "$f"; done
//     prints the private key and is "allow" (the 1-word loop is
//     credential-access);
//   - cd ~; for f in {a..q} .ssh/id_rsa; do cat "$f"; done: the same with
//     relative words (17 relative decoys), "allow";
//   - the same shape appending a payload to ~/.bashrc or a key to
//     ~/.ssh/authorized_keys is "sandboxed" (forbidden without the
//     decoys): the rc text is never judged.
//
// Each leak/plant was run for real below (bash 5.2, fake HOME). README
// says "up to 16 … and with a run-time value for the rest", but the
// run-time value of a cat operand or a redirection target is harmless to
// every rule, so the bound is an evasion one brace expansion away, not a
// documented limit of what is judged (Known limits does not name it).
//
// Severity: medium (credential read rated allow, rc/authorized_keys
// writes rated sandboxed; the sandbox's deny-read of ~/.ssh and
// read-only rc files still stop it at run time). Root and unprivileged
// alike (pure classifier).
//
// A fix would need: pick the judged words by risk, not by position (every
// word naming or lying under a credential store, an rc file, a home or a
// system directory judged, however many decoys precede it, or the words
// past the bound classed together by their directory), or a body that
// uses the variable in a path position judged with every word when the
// list is longer than the bound (a cheap per-word path check, not a full
// walk per word).
//
// Fixed: the words are chosen by risk (looprisk.go loopWordRisk: in or
// above the home, a system directory, a credential store, an rc file, a
// protected path, relative words resolved against the working directory),
// the risky ones judged first, up to 64.
func TestRedteam23LoopValuesPastBound(t *testing.T) {
	rt22dCheck(t, []rt22dCase{
		{command: `for f in /nonexistent/{a..p} ~/.ssh/id_rsa; do cat "$f"; done 2>/dev/null`, want: Escalated, effect: rt22dLeaked},
		{command: `cd ~; for f in {a..q} .ssh/id_rsa; do cat "$f"; done 2>/dev/null`, want: Escalated, effect: rt22dLeaked},
		{command: `for f in /nonexistent/{a..p} ~/.bashrc; do echo 'rm -rf ~/.ssh' >> "$f"; done 2>/dev/null`, want: Forbidden,
			effect: rt22dSSHGone, after: `bash -i -c true`},
		{command: `for f in /nonexistent/{a..p} ~/.ssh/authorized_keys; do echo k >> "$f"; done 2>/dev/null`, want: Forbidden},

		// Controls: the same loops without decoys, and a long everyday loop.
		{command: `for f in ~/.ssh/id_rsa; do cat "$f"; done`, want: Escalated, effect: rt22dLeaked},
		{command: `for f in ~/.bashrc; do echo 'rm -rf ~/.ssh' >> "$f"; done`, want: Forbidden},
		{command: `for f in {1..20}; do echo "$f"; done`, want: Allow, exact: true},
	})
}
