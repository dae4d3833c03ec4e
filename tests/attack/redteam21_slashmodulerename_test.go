//go:build linux

package attack_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam21NestedSubmoduleGitDirRenamedAway: with AllowGitWrites,
// innerGitProtection holds .git/modules/libs/config, config.worktree and
// commondir with placeholders for a submodule at libs/foo (it takes
// modules/libs for a git directory; the real one is modules/libs/foo).
// The sweep after the run (sweepInnerGitDirs) then sees modules/libs,
// which before the run held neither a HEAD nor a config and was looked
// into as a directory of names, holding a config: a new git directory,
// "with a config.worktree" (the held empty file). It renames the whole
// of modules/libs to libs.agentbox-quarantine, the user's submodule git
// directory inside. Any command, even one that writes a single source
// file, leaves the superproject broken: `git status` fails on the
// submodule's gitlink (libs/foo/.git names a directory that is gone), and
// a planted-repository violation blames the command. Control: the
// submodule at a plain path (lib) keeps its git directory, and the
// command's write to the top .git's hooks is refused.
//
// Severity: medium (a legitimate-work regression: every run under
// AllowGitWrites breaks a repository with a submodule at a nested path,
// a common layout; the git directory is renamed, not deleted). Affects
// both root and unprivileged callers.
//
// Fixed: innerGitProtection holds nothing in modules/libs, which is no
// git directory (innerGitDirs' rule), so the sweep does not take it for a
// new one.
func TestRedteam21NestedSubmoduleGitDirRenamedAway(t *testing.T) {
	t.Parallel()
	cfg := ciConfig()
	cfg.Filesystem.AllowGitWrites = true
	m := newManager(t, cfg)
	lib := newRepo(t)
	w := newRepo(t)
	hostGit(t, w, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	hostGit(t, w, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "libs/foo")
	hostGit(t, w, "commit", "-q", "-m", "add submodules")
	if isRoot {
		if err := filepath.Walk(w, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, 65534, 65534)
		}); err != nil {
			t.Fatal(err)
		}
	}
	ps := []probe{
		control("write_source", "write:"+w+"/main.txt", ""),
		attack("top_hook", "write:"+w+"/.git/hooks/pre-commit", "EROFS"),
	}
	_, res := runProbes(t, m, ps, agentbox.WithWritableRoots(w))
	if _, err := os.Stat(filepath.Join(w, ".git", "modules", "lib", "HEAD")); err != nil {
		t.Errorf("control: the plain submodule's git directory is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w, ".git", "modules", "libs", "foo", "HEAD")); err != nil {
		t.Errorf("REGRESSION: the user's submodule git directory .git/modules/libs/foo is gone after a harmless run: %v; violations: %+v", err, res.Violations)
	}
	cmd := exec.Command("git", "-c", "safe.directory=*", "status", "--short")
	cmd.Dir, cmd.Env = w, append(gitEnv(fakeHome), "PATH="+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("REGRESSION: `git status` in the superproject fails after a harmless run: %v\n%s", err, out)
	}
}
