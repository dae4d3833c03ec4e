package classify

import (
	"strings"
	"testing"
)

// TestRedteam60GitDirFile: round 56 made a git command judge the
// configuration the line wrote for its repository, .git/config and a bare
// repository's DIR/config named by --git-dir, GIT_DIR or cd. But git also
// finds the repository through a `.git` *file* ("gitdir: PATH"), which
// `git init --separate-git-dir=DIR` writes and which a line can write
// itself, and then reads DIR/config:
//
//	git init -q --separate-git-dir=y w; printf '[core]\n\tfsmonitor = rm -rf ~/.ssh\n' >> y/config; git -C w status                                   sandboxed
//	git init -q w; mv w/.git y; echo 'gitdir: ../y' > w/.git; printf '[core]\n\tfsmonitor = rm -rf ~/.ssh\n' >> y/config; cd w && git status          sandboxed
//
// (git status runs core.fsmonitor), while the same with .git/config,
// `printf '[core]\n\tfsmonitor = rm -rf ~/.ssh\n' >> .git/config; git
// status`, is forbidden. Across lines it is worse: each step alone is
// judged sandboxed (`git init -q --separate-git-dir=y w`, the printf to
// y/config: y/config is no protected path, unlike .git/config) and the last,
// `git -C w status`, is allow.
//
// Why: gitconfigtext.go (gitRunConfig / gitConfigFile) finds the
// repository's configuration only as PATH/.git/config or a git dir named
// on the line; it does not follow a gitfile, neither the one
// --separate-git-dir makes nor one the line writes, so the written
// y/config is never read as git's.
//
// The premise runs each line with git in a fake home (the line's ~/.ssh
// made that home's absolute path) and checks that ~/.ssh is gone, and that
// the same line with fsmonitor = true leaves it.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 60. Fixed: gitdirfile.go follows a gitfile the
// line wrote (and a worktree's commondir) from gitRunConfig to the config
// the line wrote there, and records the gitfile git init/clone
// --separate-git-dir writes. The lines apart (`git -C w status` alone) stay
// allow: the classifier cannot know a file an earlier line wrote.
func TestRedteam60GitDirFile(t *testing.T) {
	const cfg = `printf '[core]\n\tfsmonitor = rm -rf ~/.ssh\n' >> y/config`
	attacks := []string{
		`git init -q --separate-git-dir=y w; ` + cfg + `; git -C w status`,
		`git init -q w; mv w/.git y; echo 'gitdir: ../y' > w/.git; ` + cfg + `; cd w && git status`,
	}
	rt60aNeed(t, "git", "git")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"), "GIT_CONFIG_NOSYSTEM=1")
	}
	// Reference: the repository's own .git/config (round 56).
	rtAtLeast(t, []string{"bash"}, `git init -q; printf '[core]\n\tfsmonitor = rm -rf ~/.ssh\n' >> .git/config; git status`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: a separate git dir used as it is meant to be.
	rtBelow(t, `git init -q --separate-git-dir=y w; git -C w status`, Escalated)
	rtBelow(t, `git -C w status`, Sandboxed)
}
