package classify

import "testing"

// Red team 20: git reads configuration from the environment too:
// GIT_CONFIG_COUNT with GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n>, and
// GIT_CONFIG_PARAMETERS (what git -c passes to its children). Set on the
// command or exported, they give core.fsmonitor (run by every git status),
// core.pager, alias.X='!cmd' … exactly as git -c does. The classifier
// expands git -c core.fsmonitor=… (forbidden for rm -rf ~) but not the
// environment forms: GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor
// GIT_CONFIG_VALUE_0='rm -rf ~;' git status is "allow" (git-read-commands)
// and deletes the home (checked with git 2.39 / bash 5.2.15 on a fake
// HOME; the id_rsa variant prints the key).
//
// Severity: high (forbidden rated allow, through a read-only git command).
// Affects both root and unprivileged callers.
//
// Fixed: runGit (rules_git.go) puts GIT_CONFIG_COUNT/KEY_n/VALUE_n and
// GIT_CONFIG_PARAMETERS from the environment (envconfig.go) before the
// call's words as -c options for its checks; a run-time value there makes
// the call eval-exec.
func TestRedteam20GitEnvConfig(t *testing.T) {
	rt20Check(t, []rt20Case{
		// Attacks.
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf ~;' git status`, Forbidden, false},          // allow today
		{`GIT_CONFIG_PARAMETERS="'core.fsmonitor'='rm -rf ~;'" git status`, Forbidden, false},                                       // allow today
		{`export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf ~;'; git status`, Forbidden, false},  // allow today
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf ~' git x`, Forbidden, false},                      // sandboxed today
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='cat ~/.ssh/id_rsa;' git status`, Escalated, false}, // allow today

		// Controls.
		{`git -c core.fsmonitor='rm -rf ~;' status`, Forbidden, false},
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=color.ui GIT_CONFIG_VALUE_0=never git status`, Allow, true},
		{`GIT_CONFIG_PARAMETERS="'color.ui'='never'" git status`, Allow, true},
	})
}
