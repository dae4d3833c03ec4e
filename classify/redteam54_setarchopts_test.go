package classify

import (
	"runtime"
	"testing"
)

// TestRedteam54SetarchOptions: setarch takes its options after the
// architecture (`setarch [ARCH] [options] [PROGRAM [ARG…]]`), but round 51's
// wrapper model reads options only before it, so with an option after the
// architecture the option is taken for the program and the real command
// is read as its operands:
//
//	setarch x86_64 -R bash -c 'rm -rf ~/.ssh'      sandboxed
//	setarch x86_64 -R rm -rf ~/.ssh                escalated (credential-access), not forbidden
//	setarch x86_64 --addr-no-randomize rm -rf ~/.ssh   escalated, not forbidden
//
// while `setarch -R x86_64 rm -rf ~/.ssh` and `setarch x86_64 rm -rf
// ~/.ssh` are forbidden.
//
// Why: wrappers.go gives setarch {positional: 1} with no option table: the
// wrapper scan stops at the first word after the architecture, so -R (or
// --addr-no-randomize, -v, --) is the command, and `bash -c '…'`/`rm -rf
// …` its arguments.
//
// The premise runs each line in a fake home and checks that ~/.ssh is
// gone.
//
// Severity: high (a forbidden command run, judged sandboxed; the rm forms
// medium: escalated instead of forbidden).
// Found by red-team round 54.
// Fixed: setarch's options after the architecture are skipped
// (wrapSpec.flagsAfter).
func TestRedteam54SetarchOptions(t *testing.T) {
	lines := []string{
		`setarch x86_64 -R bash -c 'rm -rf ~/.ssh'`,
		`setarch x86_64 -R rm -rf ~/.ssh`,
		`setarch x86_64 --addr-no-randomize rm -rf ~/.ssh`,
	}
	if runtime.GOARCH == "amd64" && rtHave(t, "bash", "setarch") {
		for _, l := range lines {
			home, work := rt52bHome(t)
			out := rt52bRun(t, home, work, l)
			if !rt52bGone(home) {
				t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", l, out)
			}
		}
	}
	// References: the option before the architecture, or none.
	rtAtLeast(t, []string{"bash"}, `setarch -R x86_64 rm -rf ~/.ssh`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `setarch x86_64 rm -rf ~/.ssh`, Forbidden)
	// Control: a program run without address randomisation.
	rtBelow(t, `setarch x86_64 -R ./a.out`, Escalated)
	for _, l := range lines {
		rtAtLeast(t, []string{"bash"}, l, Forbidden)
	}
}
