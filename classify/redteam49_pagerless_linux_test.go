package classify

import (
	"os/exec"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestRedteam49PagerLess: less runs a +CMD given in $LESS, and `+!cmd` is a
// shell escape run at start (found and fixed for less itself in round 48:
// `LESS='+!rm -rf ~/.ssh$' less README` is forbidden). git and man start
// less as their pager on a terminal and hand it the same $LESS (man-db
// appends it to its own options, after its prompt; man -r PROMPT is put
// into that prompt unescaped, so a `$` in it ends the option and starts a
// new one):
//
//	LESS='+!rm -rf ~/.ssh$' git -p log
//	LESS='+!rm -rf ~/.ssh$' man ls
//	man -r 'x$+!rm -rf ~/.ssh$' ls
//
// Each removes ~/.ssh when run on a terminal (an agent's pseudo-terminal
// or a user's) and is allow (git-read-commands, common-safe-commands):
// lessOptions (lessex.go) reads $LESS only for a call of less or its z*
// wrappers (lessNames), not for the programs that start it as a pager, and
// man's -r (--prompt) value is no option runExecOptions or manRoff reads.
//
// The premise runs each line on a new pseudo-terminal in a fake home,
// typing a newline and q, as a user leaving the pager does (the shell
// escape runs at the newline, as in round 48's less premise).
//
// Severity: high (a forbidden command judged allow; it needs a terminal).
// Found by red-team round 49 (high). Fixed: $LESS's + commands are judged
// for any program that may start less as its pager, and man's -r prompt
// as the $LESS man hands less (pagerLess).
func TestRedteam49PagerLess(t *testing.T) {
	lines := []string{
		`LESS='+!rm -rf ~/.ssh$' git -p log`,
		`LESS='+!rm -rf ~/.ssh$' man ls`,
		`man -r 'x$+!rm -rf ~/.ssh$' ls`,
	}
	if rtHave(t, "bash", "git", "man", "less") {
		for _, line := range lines {
			home, work := rt49bHome(t)
			rt49bGitRepo(t, home, work)
			out := rt49bRunPty(t, home, work, line)
			if !rt49bSSHGone(home) {
				t.Fatalf("premise: %q on a terminal did not remove ~/.ssh (output %q)", line, out)
			}
		}
	}
	rtAtLeast(t, []string{"bash"}, `LESS='+!rm -rf ~/.ssh$' less README`, Forbidden) // control
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Forbidden)
	}
	rtBelow(t, `LESS=-R git -p log`, Escalated)
	rtBelow(t, `man -r 'ls page' ls`, Escalated)
}

// rt49bRunPty runs `bash -c line` in work on a new pseudo-terminal (its
// controlling terminal and standard streams) with the fake home, typing a
// newline and q (as a user leaving a pager does) every 300ms, and waits up to 30 seconds for bash to exit.
func rt49bRunPty(t *testing.T, home, work, line string) string {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = work
	cmd.Env = append(rt49bEnv(home, work), "TERM=xterm")
	return ptytest.Run(t, cmd, "\nq", 30*time.Second)
}
