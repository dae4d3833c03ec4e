//go:build linux

package classify

import "testing"

// TestRedteam22BuiltinCode: bash builtins that run code the classifier
// does not follow.
//   - compgen -C CMD WORD runs CMD (with arguments appended) to produce
//     completions, at once, in a non-interactive shell too;
//   - compgen -W WORDLIST expands WORDLIST like a word, running its
//     $(…) (here the $( is literal on the line, so nothing else expands
//     it);
//   - coproc bash starts a shell reading a pipe: echo CMD
//     >&"${COPROC[1]}" makes it run CMD. The text written is known, as
//     for bash <<< CMD (forbidden).
//
// All three are "sandboxed" with rm -rf ~/.ssh as the payload, which ran
// for real below (bash 5.2, fake HOME). A function named by compgen -F is
// already walked (function bodies are walked even if never called), and
// complete -C/-W run only on interactive completion.
//
// Severity: high (a forbidden payload in plain sight rated sandboxed).
// Affects root and unprivileged callers alike (pure classifier).
//
// A fix would need: compgen -C's value classified as a shell command (as
// trap's and mapfile -C's are); compgen -W's value expanded as a word
// (its substitutions judged); a coprocess that is a shell taking its
// input from what later commands write to ${NAME[1]} (at least: a shell
// started by coproc is fed unknown code, eval-exec, unless its input is
// provably not written).
//
// Fixed: builtincode.go: runCompgen walks -C's value as a command and
// expands -W's once more (a run-time list is eval-exec); a coproc's command
// is walked fed run-time text (a shell or interpreter reading it is
// eval-exec) and again with the output of each command whose redirection
// is >&"${NAME[1]}" (feedCoproc).
func TestRedteam22BuiltinCode(t *testing.T) {
	rt22dCheck(t, []rt22dCase{
		{command: `compgen -C "rm -rf ~/.ssh" x`, want: Forbidden, effect: rt22dSSHGone},
		{command: `compgen -W '$(rm -rf ~/.ssh)' x`, want: Forbidden, effect: rt22dSSHGone},
		{command: `coproc bash; echo "rm -rf ~/.ssh" >&"${COPROC[1]}"`, want: Forbidden, effect: rt22dSSHGone},
		{command: `coproc S { sh; }; echo "rm -rf ~/.ssh" >&"${S[1]}"`, want: Forbidden, effect: rt22dSSHGone},

		// Controls.
		{command: `bash <<< "rm -rf ~/.ssh"`, want: Forbidden},
		{command: `f(){ rm -rf ~/.ssh; }; compgen -F f x`, want: Forbidden},
		{command: `compgen -W "alpha beta" a`, want: Sandboxed, exact: true},
		{command: `compgen -c gi`, want: Sandboxed, exact: true},
		{command: `coproc { sleep 1; }`, want: Allow, exact: true},
	})
}
