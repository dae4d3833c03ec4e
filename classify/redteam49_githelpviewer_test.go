package classify

import "testing"

// TestRedteam49GitHelpViewer: git runs the command of a man viewer named
// in its configuration (man.viewer=NAME, man.NAME.cmd=CMD: help.c
// exec_man_cmd runs `sh -c "CMD PAGE"`) when asked for help, and `git
// SUB --help` is `git help SUB`:
//
//	git -c man.viewer=x -c 'man.x.cmd=rm -rf ~/.ssh;' log --help
//	GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=man.viewer GIT_CONFIG_VALUE_0=x \
//	  GIT_CONFIG_KEY_1=man.x.cmd GIT_CONFIG_VALUE_1='rm -rf ~/.ssh;' git help log
//
// Both are allow (git-read-commands) though they run `rm -rf ~/.ssh`
// (forbidden on its own). Why: man.<tool>.cmd (and browser.<tool>.cmd for
// help -w) is not among gitExecKeys (rules_git.go), so runGit never judges
// the value; matchGitRead (rules_git.go) returns from its diff/log/show
// case before the loop that refuses -c, so `log --help` with -c is allow;
// and for `help` that loop only sees -c written on the line, not the
// GIT_CONFIG_COUNT settings gitEnvConfig (envconfig.go) turned into -c.
//
// Severity: high (a forbidden command judged allow).
// Found by red-team round 49 (high). Fixed: man.<tool>.cmd and
// browser.<tool>.cmd are command keys, and the read-only git rule checks
// -c before the subcommand's own rule.
func TestRedteam49GitHelpViewer(t *testing.T) {
	lines := []string{
		`git -c man.viewer=x -c 'man.x.cmd=rm -rf ~/.ssh;' log --help`,
		`GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=man.viewer GIT_CONFIG_VALUE_0=x GIT_CONFIG_KEY_1=man.x.cmd GIT_CONFIG_VALUE_1='rm -rf ~/.ssh;' git help log`,
	}
	if rtHave(t, "git", "bash") {
		for _, line := range lines {
			home, work := rt49bHome(t)
			rt49bGitRepo(t, home, work)
			out := rt49bRun(t, "bash", home, work, line)
			if !rt49bSSHGone(home) {
				t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", line, out)
			}
		}
	}
	rtAtLeast(t, []string{"bash"}, `rm -rf ~/.ssh`, Forbidden) // control: the payload alone
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Forbidden)
	}
	rtBelow(t, `git log --help`, Escalated)
	rtBelow(t, `git -c color.ui=never log --oneline -5`, Escalated)
}
