package classify

import "testing"

// TestRedteam49SetKeyword: after `set -k` (set -o keyword) bash puts every
// NAME=VALUE word of a command into that command's environment, not only
// those before its name. So
//
//	set -k; git status GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf ~/.ssh #'
//
// runs git status with core.fsmonitor set to `rm -rf ~/.ssh #`, which git
// runs as its fsmonitor hook, and is allow (common-safe-commands for set,
// git-read-commands for git: the words are taken for pathspecs). The same
// settings written before `git` are judged (forbidden). The classifier
// does not know the option: runSet and setPosix (dispatch.go) follow only
// positional parameters and posix mode, and assignment words are only
// collected before the program name (call.go). Any prefix assignment the
// classifier judges (LD_PRELOAD, BASH_ENV, PAGER, GIT_EXTERNAL_DIFF …) can
// be moved behind the program name this way: `set -k; git diff
// GIT_EXTERNAL_DIFF='rm -rf ~ #'` is allow too.
//
// Severity: high (a forbidden command judged allow).
// Found by red-team round 49 (high). Fixed: after set -k (set -o keyword)
// NAME=VALUE words after the command name are its environment
// (keywordAssigns).
func TestRedteam49SetKeyword(t *testing.T) {
	line := `set -k; git status GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf ~/.ssh #'`
	if rtHave(t, "git", "bash") {
		home, work := rt49bHome(t)
		rt49bGitRepo(t, home, work)
		out := rt49bRun(t, "bash", home, work, line)
		if !rt49bSSHGone(home) {
			t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", line, out)
		}
		// Without set -k the words are pathspecs: nothing runs.
		home, work = rt49bHome(t)
		rt49bGitRepo(t, home, work)
		rt49bRun(t, "bash", home, work, line[len("set -k; "):])
		if rt49bSSHGone(home) {
			t.Fatalf("premise: without set -k the line removed ~/.ssh too")
		}
	}
	// control: the same settings before the program name
	rtAtLeast(t, []string{"bash"}, `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf ~/.ssh #' git status`, Forbidden)
	for _, l := range []string{
		line,
		`set -o keyword; git status GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf ~/.ssh #'`,
	} {
		rtAtLeast(t, []string{"bash"}, l, Forbidden)
	}
	rtBelow(t, `set -e; git status --short`, Escalated)
}
