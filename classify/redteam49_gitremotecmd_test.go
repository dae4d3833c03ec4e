package classify

import "testing"

// TestRedteam49GitRemoteCommand: git settings that run a command through
// a remote's URL or a clone's --config, in forms runGit (rules_git.go)
// does not read:
//
//	git -c protocol.allow=always -c 'remote.o.url=ext::sh -c rm% -rf% ~/.ssh' ls-remote o
//	GIT_ALLOW_PROTOCOL=ext GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.o.url \
//	  GIT_CONFIG_VALUE_0='ext::sh -c rm% -rf% ~/.ssh' git ls-remote o
//	git clone -q --config='core.fsmonitor=rm -rf ~/.ssh #' src d && git -C d status
//
// The ext:: transport runs its URL as a command; gitExtURL is only called
// for an argument starting with ext::, and gitExecKey takes remote.* and
// url.* keys only with a .command/.proxy/… suffix, so remote.NAME.url (and
// url.BASE.insteadOf) carrying an ext:: URL is not judged: sandboxed with
// -c, allow (git-read-commands) through GIT_CONFIG_COUNT (the -c that
// gitEnvConfig makes is not seen by matchGitRead's -c check, and
// protocol.allow=always, unlike protocol.ext.allow, is no exec key).
// `git clone --config KEY=VALUE` (two words) is judged, but the one-word
// --config=KEY=VALUE (and --conf=, an abbreviation) is not: runGit's loop
// matches v == "--config" only. Each removes ~/.ssh; `git ls-remote
// 'ext::sh -c rm% -rf% ~/.ssh'` and `git clone --config 'core.fsmonitor=rm
// -rf ~/.ssh #' src d` are forbidden.
//
// Severity: high (a forbidden command judged allow or sandboxed).
// Found by red-team round 49 (high). Fixed: a -c (or GIT_CONFIG_COUNT)
// remote url or url.BASE.insteadOf naming an ext:: URL has its command
// judged, and clone's --config=K=V (any abbreviation) is read as -c
// (gitConfigPair).
func TestRedteam49GitRemoteCommand(t *testing.T) {
	lines := []string{
		`git -c protocol.allow=always -c 'remote.o.url=ext::sh -c rm% -rf% ~/.ssh' ls-remote o`,
		`GIT_ALLOW_PROTOCOL=ext GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.o.url GIT_CONFIG_VALUE_0='ext::sh -c rm% -rf% ~/.ssh' git ls-remote o`,
		`git clone -q --config='core.fsmonitor=rm -rf ~/.ssh #' src d && git -C d status`,
		`git clone -q --conf='core.fsmonitor=rm -rf ~/.ssh #' src d && git -C d status`,
		`GIT_ALLOW_PROTOCOL=ext GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0='url.ext::sh -c rm% -rf% ~/.ssh #.insteadOf' GIT_CONFIG_VALUE_0=o git ls-remote o`,
	}
	if rtHave(t, "git", "bash") {
		for i, line := range lines {
			home, work := rt49bHome(t)
			if i == 2 || i == 3 {
				rt49bRun(t, "bash", home, work, "mkdir src && cd src && git init -q . && echo x > f && git add f && git commit -qm i")
			} else {
				rt49bGitRepo(t, home, work)
			}
			out := rt49bRun(t, "bash", home, work, line)
			if !rt49bSSHGone(home) {
				t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", line, out)
			}
		}
	}
	// controls: the same commands where the classifier looks
	rtAtLeast(t, []string{"bash"}, `git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% -rf% ~/.ssh'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `git clone -q --config 'core.fsmonitor=rm -rf ~/.ssh #' src d && git -C d status`, Forbidden)
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Forbidden)
	}
	rtBelow(t, `git clone -q --config=core.autocrlf=false src d`, Escalated)
	rtBelow(t, `git ls-remote origin`, Escalated)
}
