//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam20PlantedSubmoduleGitDir: with AllowGitWrites the rest of
// .git is writable, and the git directories of submodules
// (.git/modules/NAME) are protected only where they exist when the
// command starts (innerGitProtection). In a clone whose submodule is
// declared in .gitmodules but not initialised yet (a plain `git clone`
// without --recursive), the command makes .git/modules/lib itself: HEAD,
// objects, refs, a config with core.fsmonitor and the right remote, and a
// post-checkout hook. The sweep for planted repositories never enters
// .git, so it is neither disabled nor reported. The developer's next `git
// submodule update --init` finds the git directory in place, reuses it
// instead of cloning, and runs the command's hook and fsmonitor on the
// host. With AllowGitWrites such files cannot be forbidden (README), so the
// probes that make them are expected to succeed: what fails is the check
// after the command. Control: the top .git's hooks stay read-only.
//
// Fixed: the git directories kept inside each repository (modules/NAME,
// nested, and worktrees/NAME: innerGitDirs) are recorded before the run,
// and new ones are judged like planted repositories after it and renamed
// away (sweepInnerGitDirs).
//
// Severity: medium (code execution on the host; needs AllowGitWrites and a
// declared, uninitialised submodule, then a host `git submodule update
// --init`, a routine step after a clone). Affects both root and
// unprivileged callers.
func TestRedteam20PlantedSubmoduleGitDir(t *testing.T) {
	t.Parallel()
	cfg := ciConfig()
	cfg.Filesystem.AllowGitWrites = true
	m := newManager(t, cfg)
	lib := newRepo(t)
	up := newRepo(t)
	hostGit(t, up, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	hostGit(t, up, "commit", "-q", "-m", "add lib")
	w := filepath.Join(newDir(t, 0o755), "clone")
	hostGit(t, filepath.Dir(w), "clone", "-q", up, w)
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
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	mod := w + "/.git/modules/lib"
	config := "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch " + marker + " #\"\n" +
		"[remote \"origin\"]\n\turl = " + lib + "\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	ps := []probe{
		control("write_source", "write:"+w+"/main.txt", ""),
		control("git_objects_write", "mkdir:"+w+"/.git/objects/agentbox-control", ""),
		attack("top_hook", "put:"+w+"/.git/hooks/post-checkout|"+hookScript(marker), "EROFS"),
		control("mkdir_modules", "mkdir:"+w+"/.git/modules", ""),
		control("mkdir_mod", "mkdir:"+mod, ""),
		control("mod_head", "put:"+mod+"/HEAD|"+strconv.Quote("ref: refs/heads/master\n"), ""),
		control("mod_objects", "mkdir:"+mod+"/objects", ""),
		control("mod_refs", "mkdir:"+mod+"/refs", ""),
		control("mod_hooks", "mkdir:"+mod+"/hooks", ""),
		control("mod_config", "put:"+mod+"/config|"+strconv.Quote(config), ""),
		control("mod_hook", "put:"+mod+"/hooks/post-checkout|"+hookScript(marker), ""),
		control("mod_hook_executable", "chmod:755|"+mod+"/hooks/post-checkout", ""),
	}
	_, res := runProbes(t, m, ps, agentbox.WithWritableRoots(w))
	if _, err := os.Lstat(mod); err == nil {
		t.Errorf("ESCAPE: the submodule git directory %s the command made is still in place; violations: %+v", mod, res.Violations)
	}
	if hostGitRuns(w, marker, "-c", "protocol.file.allow=always", "submodule", "update", "--init") {
		t.Errorf("ESCAPE: `git submodule update --init` on the host ran code the sandbox planted in %s", mod)
	}
}
