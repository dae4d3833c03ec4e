package classify

import "testing"

// TestRedteam49ExecPath: an allow-listed program name run from a directory
// the line puts first in the search path:
//
//	mkdir -p e && ln -s /bin/sh e/git-submodule && printf 'rm -rf ~/.ssh\n' > status; git --exec-path=e submodule status
//	mkdir -p e && ln -s /bin/sh e/git-submodule && printf 'rm -rf ~/.ssh\n' > status; GIT_EXEC_PATH=e git submodule status
//	mkdir -p e && ln -s /bin/rm e/ls; PATH=e:$PATH ls -rf ~
//
// git runs its dashed helpers (git-submodule) from the exec path: here sh,
// which runs the file "status" it is handed; `ls` is rm. Each removes
// ~/.ssh (the last the whole home) and is sandboxed, where `printf 'rm -rf
// ~/.ssh\n' > status; sh status` and `rm -rf ~` are forbidden. Why:
// matchGitRead (rules_git.go) refuses --exec-path only for subcommands
// without a case of their own (its switch returns first for submodule,
// stash, branch, remote, worktree, the diff family …) and only as the
// exact word (`--exec-path=e status` passes), GIT_EXEC_PATH is not in
// loaderVars (rules_exec.go), and PATH set on the line is never followed:
// the rules match the program's base name (normName, unit.go), whatever
// directory the shell finds it in. Without the set-up, `git
// --exec-path=e submodule status`, `git --exec-path=e status` and
// `GIT_EXEC_PATH=e git submodule status` are allow.
//
// Severity: high (a forbidden command judged sandboxed; allow for git
// running programs from a directory the line names).
// Found by red-team round 49 (high). Fixed in part: --exec-path=DIR,
// GIT_EXEC_PATH and a PATH with a relative entry run programs from a
// directory the line chose: eval-exec, escalated (not forbidden). The
// read-only git rule checks --exec-path in any spelling first.
func TestRedteam49ExecPath(t *testing.T) {
	const setup = `mkdir -p e && ln -s /bin/sh e/git-submodule && printf 'rm -rf ~/.ssh\n' > status; `
	lines := []string{
		setup + `git --exec-path=e submodule status`,
		setup + `GIT_EXEC_PATH=e git submodule status`,
		`mkdir -p e && ln -s /bin/rm e/ls; PATH=e:$PATH ls -rf ~`,
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
	rtAtLeast(t, []string{"bash"}, `printf 'rm -rf ~/.ssh\n' > status; sh status`, Forbidden) // control
	// Escalated, not forbidden: following the planted directory to the
	// file sh is handed is left open (the note of this stop says so).
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	}
	for _, line := range []string{
		`git --exec-path=e submodule status`,
		`git --exec-path=e status`,
		`GIT_EXEC_PATH=e git submodule status`,
	} {
		rtAtLeast(t, []string{"bash"}, line, Sandboxed)
	}
	rtBelow(t, `git submodule status`, Sandboxed)
	rtBelow(t, `PATH=$HOME/go/bin:$PATH ls -la`, Escalated)
}
