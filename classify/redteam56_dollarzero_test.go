package classify

import "testing"

// TestRedteam56ShellDollarZero: `sh -c STRING ARG0 ARG1 …` sets $0 to
// ARG0 and $1 … to the rest, so the first word after the string is the
// script's $0. The classifier follows $1 and "$@" into the string, not
// $0:
//
//	sh -c 'rm -rf "$0/.ssh"' ~     sandboxed
//	bash -c 'rm -rf "$0"' /        escalated (dynamic-delete-target)
//	sh -c 'rm -rf "$0"' ~/.ssh     escalated (credential-access)
//	bash -c '"$0" -rf ~' rm        escalated (eval-exec)
//
// are `rm -rf ~/.ssh`, `rm -rf /`, `rm -rf ~` (forbidden), and the same
// lines with $1 (`sh -c 'rm -rf "$1/.ssh"' _ ~`) are forbidden.
//
// Why: the child shell's positional parameters are set from the words
// after the string from $1 on (the -c string is walked with them as
// arguments), and $0 stays the shell's own name, a run-time value, in
// the string: a delete of it is dynamic-delete-target, a program word of
// it eval-exec, and a path below it ("$0/.ssh") is taken for one below
// some directory, not below the home the line gave.
//
// The premise runs `sh -c 'rm -rf "$0/.ssh"' ~`, `sh -c 'rm -rf "$0"'
// ~/.ssh` and `bash -c '"$0" -rf ~/.ssh' rm` in a fake home.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed; the other forms
// medium: escalated instead of forbidden).
// Found by red-team round 56. Fixed: shells.go (sh -c's word after the string is $0).
func TestRedteam56ShellDollarZero(t *testing.T) {
	if rtHave(t, "bash", "sh") {
		rt56aPremise(t, `sh -c 'rm -rf "$0/.ssh"' ~`)
		rt56aPremise(t, `sh -c 'rm -rf "$0"' ~/.ssh`)
		rt56aPremise(t, `bash -c '"$0" -rf ~/.ssh' rm`)
	}
	// References: the same with $1.
	rtAtLeast(t, []string{"bash"}, `sh -c 'rm -rf "$1/.ssh"' _ ~`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `bash -c 'rm -rf "$1"' _ /`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `bash -c 'rm -rf "$1"' _ ~/.ssh`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `bash -c '"$1" -rf ~' _ rm`, Forbidden)
	// The attack.
	for _, l := range []string{
		`sh -c 'rm -rf "$0/.ssh"' ~`,
		`bash -c 'rm -rf "$0"' /`,
		`sh -c 'rm -rf "$0"' ~/.ssh`,
		`bash -c 'rm -rf "$0"' ~/.ssh`,
		`bash -c '"$0" -rf ~' rm`,
		`sh -c 'rm -rf $0/.ssh' ~`,
	} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls.
	rtBelow(t, `bash -c 'echo "$0"' hi`, Escalated)
	rtBelow(t, `find . -name '*.o' -exec sh -c 'rm -f "$0"' {} \;`, Escalated)
	rtBelow(t, `bash -c 'rm -rf "$1"' _ ./build`, Escalated)
}
