//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam21SubmoduleGitDirSymlink: with AllowGitWrites, new git
// directories of submodules (.git/modules/NAME) are judged after the run
// and renamed away when risky (sweepInnerGitDirs). But innerGitDirs looks
// only at entries that are directories: a .git/modules/NAME that is a
// symbolic link is passed over. The command makes a git directory with a
// post-checkout hook and a core.fsmonitor in .cache/evil (a directory the
// repository sweep skips, so the planted repository is not found there
// either) and links .git/modules/lib -> ../../.cache/evil, lib being a
// submodule the user's .gitmodules declares but the clone has not
// initialised. Neither the link nor its target is judged, disabled or
// reported. The developer's next `git submodule update --init` finds
// .git/modules/lib in place (git follows the link), reuses it instead of
// cloning, and runs the command's hook and fsmonitor on the host.
// Control: the same git directory made as a real directory at
// .git/modules/lib (TestRedteam20PlantedSubmoduleGitDir's attack) is
// renamed away; here a real directory .git/modules/other is made and must
// be renamed away and reported, and the top .git's hooks stay read-only.
//
// Severity: medium (code execution on the host; needs AllowGitWrites and a
// declared, uninitialised submodule, then a host `git submodule update
// --init`, a routine step after a clone). Affects both root and
// unprivileged callers.
//
// Fixed: innerGitDirs lists a link or file under modules/ or worktrees/
// too, so the sweep judges a new one (riskyGitDir: a symbolic link) and
// renames it away; walkGitDir reports such links, whose targets the plan
// holds read-only.
func TestRedteam21SubmoduleGitDirSymlink(t *testing.T) {
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
	evil := w + "/.cache/evil"
	other := w + "/.git/modules/other"
	config := "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch " + marker + " #\"\n" +
		"[remote \"origin\"]\n\turl = " + lib + "\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	ps := []probe{
		control("write_source", "write:"+w+"/main.txt", ""),
		attack("top_hook", "put:"+w+"/.git/hooks/post-checkout|"+hookScript(marker), "EROFS"),
		control("mkdir_cache", "mkdir:"+w+"/.cache", ""),
		control("mkdir_modules", "mkdir:"+w+"/.git/modules", ""),
	}
	for _, d := range []string{evil, other} {
		ps = append(ps,
			control("mkdir_"+filepath.Base(d), "mkdir:"+d, ""),
			control("head_"+filepath.Base(d), "put:"+d+"/HEAD|"+strconv.Quote("ref: refs/heads/master\n"), ""),
			control("objects_"+filepath.Base(d), "mkdir:"+d+"/objects", ""),
			control("refs_"+filepath.Base(d), "mkdir:"+d+"/refs", ""),
			control("hooks_"+filepath.Base(d), "mkdir:"+d+"/hooks", ""),
			control("config_"+filepath.Base(d), "put:"+d+"/config|"+strconv.Quote(config), ""),
			control("hook_"+filepath.Base(d), "put:"+d+"/hooks/post-checkout|"+hookScript(marker), ""),
			control("hook_exec_"+filepath.Base(d), "chmod:755|"+d+"/hooks/post-checkout", ""))
	}
	ps = append(ps, control("link_module", "symlink:../../.cache/evil|"+w+"/.git/modules/lib", ""))
	_, res := runProbes(t, m, ps, agentbox.WithWritableRoots(w))
	if _, err := os.Lstat(other); err == nil {
		t.Errorf("control: the submodule git directory %s made as a directory was not renamed away; violations: %+v", other, res.Violations)
	}
	if _, err := os.Stat(w + "/.git/modules/lib/hooks/post-checkout"); err == nil {
		t.Errorf("ESCAPE: .git/modules/lib, a link the command made to its own git directory, still leads to a hook; violations: %+v", res.Violations)
	}
	if hostGitRuns(w, marker, "-c", "protocol.file.allow=always", "submodule", "update", "--init") {
		t.Errorf("ESCAPE: `git submodule update --init` on the host ran code the sandbox planted behind the link .git/modules/lib")
	}
}
