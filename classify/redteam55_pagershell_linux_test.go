package classify

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/ptytest"
)

// TestRedteam55PagerShell: git and man hand their output to the pager on
// standard input whenever it goes to a terminal, and a pager that is a
// shell runs that output as commands, so
//
//	printf 'rm -rf ~/.ssh\n' > notes && git -c core.pager=sh grep --no-color -h --no-index -e rm notes   sandboxed
//	printf '.TH "#" 1\nrm -rf ~/.ssh\n' > x.1 && man -P sh -l x.1                                      sandboxed
//	… && PAGER=sh man -l x.1 / MANOPT=-Psh man -l x.1                                                  sandboxed
//	git -c core.pager=sh log                                                                           sandboxed  (runs the commit messages)
//
// are `cat notes | sh` (forbidden) and `man -l x.1 | sh`, `git log | sh`
// (eval-exec, escalated) written another way: the man page's header line
// starts with the title `#`, a comment to sh, and its text line is rm -rf
// ~/.ssh; git grep -h prints the matching line alone.
//
// Why: a pager value is judged as a command line (escapes.go:
// execOptions for man -P, git's core.pager and GIT_PAGER/PAGER as
// codeVars in rules_exec.go), and `sh` alone is a harmless command; what
// the pager is fed is never taken as the standard input of a shell, as
// the data-flow model does for `git log | sh` (a pipeline to a shell of
// run-time text is eval-exec). MANOPT, man's option variable, is not read
// at all (it is in neither loaderVars nor envconfig.go's optionEnvVars).
//
// The premise runs the git and man lines on a pseudo-terminal (an
// agent's terminal, or any interactive session) in a fake home and checks
// that ~/.ssh is gone.
//
// Severity: high (rm -rf ~/.ssh, forbidden as `cat notes | sh`, judged
// sandboxed; a pipe of run-time text to a shell, escalated, judged
// sandboxed).
// Found by red-team round 55. Fixed: classify/lessex.go (pagerRuns): a
// pager of git's or man's that is a shell or an interpreter is judged as
// `PROGRAM | PAGER`.
func TestRedteam55PagerShell(t *testing.T) {
	const (
		gitLine = `printf 'rm -rf ~/.ssh\n' > notes && git -c core.pager=sh grep --no-color -h --no-index -e rm notes`
		manLine = `printf '.TH "#" 1\nrm -rf ~/.ssh\n' > x.1 && man -P sh -l x.1`
		manOpt  = `printf '.TH "#" 1\nrm -rf ~/.ssh\n' > x.1 && MANOPT=-Psh man -l x.1`
	)
	for _, c := range []struct{ prog, line string }{{"git", gitLine}, {"man", manLine}, {"man", manOpt}} {
		if !rtHave(t, "bash", c.prog) {
			continue
		}
		home, work := rt55aHome(t)
		out := rt55aRunPty(t, home, work, c.line)
		if !rt55aGone(home) {
			t.Fatalf("premise: %q on a terminal did not remove ~/.ssh (output %q)", c.line, out)
		}
	}
	// References: the same output piped to a shell.
	rtAtLeast(t, []string{"bash", "sh"}, `printf 'rm -rf ~/.ssh\n' > notes && cat notes | sh`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `printf '.TH "#" 1\nrm -rf ~/.ssh\n' > x.1 && man -l x.1 | sh`, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `git log | sh`, Escalated)
	// The attack.
	// Escalated, as `git grep … notes | sh` and `grep … notes | sh` are:
	// the classifier does not work out which lines grep prints.
	rtAtLeast(t, []string{"bash", "sh"}, gitLine, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `printf 'rm -rf ~/.ssh\n' > notes && GIT_PAGER=sh git grep --no-color -h --no-index -e rm notes`, Escalated)
	for _, l := range []string{
		manLine,
		manOpt,
		`printf '.TH "#" 1\nrm -rf ~/.ssh\n' > x.1 && PAGER=sh man -l x.1`,
		`git -c core.pager=sh log`,
		`GIT_PAGER=bash git log`,
		`git -c pager.log=sh log`,
	} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: ordinary pagers stay below escalated.
	rtBelow(t, `git -c core.pager='less -FRX' log`, Escalated)
	rtBelow(t, `GIT_PAGER=cat git log`, Escalated)
	rtBelow(t, `man -P cat ls`, Escalated)
}

// rt55aRunPty runs `bash -c line` in dir with the fake home on a new
// pseudo-terminal and returns what the terminal showed.
func rt55aRunPty(t *testing.T, home, dir, line string) string {
	t.Helper()
	if !strings.HasPrefix(home, os.TempDir()) || !strings.HasPrefix(dir, os.TempDir()) {
		t.Fatalf("refusing to run with home %q or dir %q outside %s", home, dir, os.TempDir())
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", line)
	cmd.Dir = dir
	cmd.Env = rt55aEnv(home, dir, "TERM=xterm")
	return ptytest.Run(t, cmd, "", 60*time.Second)
}
