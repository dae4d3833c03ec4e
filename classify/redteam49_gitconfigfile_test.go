package classify

import "testing"

// TestRedteam49GitConfigFileEnv: git config reads the file named by
// GIT_CONFIG as if it were given with --file, and --list prints every
// setting of an INI file: ~/.pypirc ([pypi] password = …), ~/.my.cnf,
// ~/.databrickscfg, ~/.sentryclirc are such files.
//
//	GIT_CONFIG=$HOME/.pypirc git config --list
//
// prints pypi.password=… and is allow (git-read-commands), where `git
// config -f ~/.pypirc --list` is credential-access. matchCredentialAccess
// (rules_net.go) looks at arguments and redirections only, never at an
// assignment's value, and gitConfigFiles (envconfig.go) lists
// GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM but not GIT_CONFIG.
//
// Severity: high (a credential read judged allow).
// Found by red-team round 49 (high). Fixed: GIT_CONFIG is one of the files
// git reads from the environment, and a credential store named by it or
// MAGIC is credential access (unit.envReads).
func TestRedteam49GitConfigFileEnv(t *testing.T) {
	line := `GIT_CONFIG=$HOME/.pypirc git config --list`
	if rtHave(t, "git", "bash") {
		home, work := rt49bHome(t)
		if out := rt49bRun(t, "bash", home, work, line); !rt49bLeaks(out) {
			t.Fatalf("premise: %q did not print the secret (output %q)", line, out)
		}
	}
	rtAtLeast(t, []string{"bash"}, `git config -f ~/.pypirc --list`, Escalated) // control
	rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `export GIT_CONFIG=~/.pypirc; git config -l`, Escalated)
	rtBelow(t, `git config --list`, Escalated)
}
