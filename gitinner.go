package agentbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// A repository keeps the git directories of its submodules
// (.git/modules/NAME, NAME may hold slashes, and a submodule's own
// submodules in its modules) and of its linked work trees
// (.git/worktrees/NAME) inside its own. With AllowGitWrites a command may
// make new ones: the host's `git submodule update --init` reuses a
// modules/NAME it finds in place instead of cloning, hooks and config
// included. So they are recorded before a run like repositories, and new
// ones are judged and disabled after it like planted repositories.

// innerGitDir is one git directory kept inside another.
type innerGitDir struct {
	path   string
	allow  gitDirAllowance
	notDir bool // a symbolic link or a file in its place
}

// submoduleKeys are what git writes in a submodule's config beyond a
// repository's: where its work tree is.
var submoduleKeys = map[string]bool{"core.worktree": true}

// innerScanBudget bounds the directories the walks of one writable root's
// repositories examine together (innerGitDirs), each phase of a run (the
// record and the protection before it, the sweep after it) on a budget
// of its own: every later run walks what a command leaves, however many
// repositories it made.
const innerScanBudget = 10 * gitDirScanMax

// newInnerBudget returns a fresh budget of innerScanBudget directories.
func newInnerBudget() *int {
	n := innerScanBudget
	return &n
}

// innerGitDirs lists the git directories kept inside the git directory
// gitPath, those inside them too, at most gitDirScanMax directories
// examined and no more than budget has left, which it spends (truncated
// says a bound cut the list short). Directories are listed beneath gitPath
// without following a symbolic link: a modules or worktrees that is one
// is listed, to be judged whole, not walked into (a command could point
// it at a denied directory, or at one large tree from many repositories).
// A directory below modules/ that holds a HEAD or a config is taken for a git
// directory (git would); one that holds neither is looked into, for
// names with slashes. An entry that is no directory (a symbolic link
// .git/modules/lib -> ../../.cache/evil, which git follows) is listed
// too, to be judged whole. One with a HEAD or a config that git would not
// take for a git directory is looked into as well (halfGitDir). Those a
// sweep disabled (renamed) are left out.
func innerGitDirs(gitPath string, budget *int) (dirs []innerGitDir, truncated bool) {
	fi, err := os.Lstat(gitPath)
	if err != nil || !fi.IsDir() {
		return nil, false // a gitlink or a link: judged whole
	}
	type item struct {
		dir, common string
		inHalf      bool // below a half git directory (halfGitDir): its own files are none
		half        bool // the half git directory itself: its modules and worktrees are queued already
	}
	var queue []item
	for _, it := range []item{{dir: filepath.Join(gitPath, "modules")}, {dir: filepath.Join(gitPath, "worktrees"), common: gitPath}} {
		switch fi, err := os.Lstat(it.dir); {
		case err != nil:
		case !fi.IsDir():
			dirs = append(dirs, innerGitDir{path: it.dir, notDir: true}) // git follows a link
		default:
			queue = append(queue, it)
		}
	}
	access := scanAccess{root: gitPath}
	defer access.restore()
	for n := 0; len(queue) > 0; n++ {
		if n == gitDirScanMax || *budget <= 0 {
			return dirs, true
		}
		*budget--
		it := queue[0]
		queue = queue[1:]
		entries, err := access.list(it.dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			d := filepath.Join(it.dir, e.Name())
			switch {
			case strings.HasSuffix(e.Name(), quarantineSuffix), !e.IsDir() && it.inHalf,
				it.half && (e.Name() == "modules" || e.Name() == "worktrees"):
			case !e.IsDir():
				// A link (git follows it to a git directory anywhere) or
				// a file: judged whole (riskyGitDir), not looked into.
				dirs = append(dirs, innerGitDir{path: d, notDir: true})
			case it.common == "" && !paths.HoldsAny(d, "HEAD", "config"):
				queue = append(queue, item{dir: d, inHalf: it.inHalf}) // modules/a/b: the submodule a/b
			case it.common == "":
				dirs = append(dirs, innerGitDir{path: d, allow: gitDirAllowance{keys: submoduleKeys}})
				queue = append(queue, item{dir: filepath.Join(d, "modules")}, item{dir: filepath.Join(d, "worktrees"), common: d})
				if halfGitDir(d) {
					queue = append(queue, item{dir: d, inHalf: true, half: true})
				}
			default:
				dirs = append(dirs, innerGitDir{path: d, allow: gitDirAllowance{common: it.common}})
				queue = append(queue, item{dir: filepath.Join(d, "modules")}, item{dir: filepath.Join(d, "worktrees"), common: d})
			}
		}
	}
	return dirs, false
}

// innerGitProtection is what stays read-only of the git directories kept
// inside the one at gitPath (innerGitDirs), when commands may write to
// git: a submodule's (modules/NAME, NAME may hold slashes, nested as deep
// as submodules go) is protected like the top one (hooks, config, a held
// commondir); a linked work tree's (worktrees/NAME) keeps its commondir,
// which names where its config and hooks come from. config.worktree, read
// when the worktreeConfig extension is on, is kept (or held empty)
// everywhere. Nothing is held in a directory that is no git directory
// (modules/libs of the submodule libs/foo): a held config there would
// make it look like one to the sweep after the run. Where a bound cut the
// walk short (truncated), modules and worktrees stay read-only whole: the
// git directories past the bound could not be protected one by one.
func innerGitProtection(gitPath string, fsc FilesystemConfig, budget *int) (readOnly []string, holds map[string][]byte, truncated bool) {
	if !fsc.AllowGitWrites && !fsc.AllowGitConfig {
		return nil, nil, false // the whole .git is read-only
	}
	if fi, err := os.Stat(gitPath); err != nil || !fi.IsDir() {
		return nil, nil, false // none, or a gitlink file (read-only whole)
	}
	holds = make(map[string][]byte)
	keep := func(p string, missing []byte) {
		if _, err := os.Lstat(p); err == nil {
			readOnly = append(readOnly, p)
		} else {
			holds[p] = missing
		}
	}
	if !fsc.AllowGitConfig {
		keep(filepath.Join(gitPath, "config.worktree"), nil)
	}
	dirs, truncated := innerGitDirs(gitPath, budget)
	if truncated {
		for _, d := range []string{"modules", "worktrees"} {
			if fi, err := os.Lstat(filepath.Join(gitPath, d)); err == nil && fi.IsDir() {
				readOnly = append(readOnly, filepath.Join(gitPath, d))
			}
		}
	}
	for _, d := range dirs {
		if d.notDir {
			continue // one made by a command is disabled after the run
		}
		if d.allow.common != "" { // a linked work tree's
			keep(filepath.Join(d.path, "commondir"), commondirHold)
		} else {
			readOnly = append(readOnly, filepath.Join(d.path, "hooks"))
			if !fsc.AllowGitConfig {
				keep(filepath.Join(d.path, "config"), nil)
			}
			holds[filepath.Join(d.path, "commondir")] = commondirHold
		}
		if !fsc.AllowGitConfig {
			keep(filepath.Join(d.path, "config.worktree"), nil)
		}
	}
	return readOnly, holds, truncated
}

// halfGitDir reports whether d, which holds a HEAD or a config, lacks one
// of what git's own test of a git directory needs (HEAD, objects, refs):
// git takes modules/libs/bar for the submodule libs/bar's git directory
// when modules/libs is no git directory to it, so a command's config in
// modules/libs must not hide modules/libs/bar from the sweep.
func halfGitDir(d string) bool {
	for _, f := range []string{"HEAD", "objects", "refs"} {
		if !paths.HoldsAny(d, f) {
			return true
		}
	}
	return false
}

// innerGitKeys are the repoKeys of the git directories kept inside each
// of gitPaths, for the record before a run.
func innerGitKeys(gitPaths []string) []string {
	var keys []string
	budget := newInnerBudget()
	for _, g := range gitPaths {
		dirs, _ := innerGitDirs(g, budget)
		for _, d := range dirs {
			keys = append(keys, repoKey(d.path))
		}
	}
	return keys
}

// sweepInnerGitDirs disables the git directories kept inside the
// repositories gitPaths of the writable root w that were not there before
// the command (old), if they could run code on the host, and reports
// each; and reports a list cut short.
func sweepInnerGitDirs(w string, old map[string]bool, gitPaths []string) []Violation {
	var out []Violation
	access := scanAccess{root: w}
	defer access.restore()
	budget := newInnerBudget()
	for _, g := range gitPaths {
		dirs, truncated := innerGitDirs(g, budget)
		if truncated {
			out = append(out, Violation{Kind: "filesystem", Rule: "planted-repository",
				Detail: fmt.Sprintf("%s holds more than %d submodule and work tree directories, or the repositories of %s more than %d together: git directories the command made beyond them were not checked", g, gitDirScanMax, w, innerScanBudget)})
		}
		for _, d := range dirs {
			if old[repoKey(d.path)] {
				continue
			}
			reason := riskyGitDir(access.read, d.path, d.allow)
			if reason == "" {
				continue
			}
			v := Violation{Kind: "filesystem", Rule: "planted-repository", Path: d.path,
				Detail: fmt.Sprintf("the git directory %s was created by the command and %s", d.path, reason)}
			if to, err := quarantine(w, d.path); err != nil {
				v.Detail += "; agentbox could not disable it: " + err.Error()
			} else {
				v.Detail += "; agentbox renamed it to " + to
			}
			out = append(out, v)
		}
	}
	return out
}
