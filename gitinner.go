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

// innerGitDirs lists the git directories kept inside the git directory
// gitPath, those inside them too, at most gitDirScanMax directories
// examined (truncated says the bound cut the list short). A directory
// below modules/ that holds a HEAD or a config is taken for a git
// directory (git would); one that holds neither is looked into, for
// names with slashes. An entry that is no directory (a symbolic link
// .git/modules/lib -> ../../.cache/evil, which git follows) is listed
// too, to be judged whole. One with a HEAD or a config that git would not
// take for a git directory is looked into as well (halfGitDir). Those a
// sweep disabled (renamed) are left out.
func innerGitDirs(gitPath string) (dirs []innerGitDir, truncated bool) {
	fi, err := os.Lstat(gitPath)
	if err != nil || !fi.IsDir() {
		return nil, false // a gitlink or a link: judged whole
	}
	type item struct {
		dir, common string
		inHalf      bool // below a half git directory (halfGitDir): its own files are none
		half        bool // the half git directory itself: its modules and worktrees are queued already
	}
	queue := []item{{dir: filepath.Join(gitPath, "modules")}, {dir: filepath.Join(gitPath, "worktrees"), common: gitPath}}
	for n := 0; len(queue) > 0; n++ {
		if n == gitDirScanMax {
			return dirs, true
		}
		it := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(it.dir)
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
// make it look like one to the sweep after the run.
func innerGitProtection(gitPath string, fsc FilesystemConfig) (readOnly []string, holds map[string][]byte) {
	if !fsc.AllowGitWrites && !fsc.AllowGitConfig {
		return nil, nil // the whole .git is read-only
	}
	if fi, err := os.Stat(gitPath); err != nil || !fi.IsDir() {
		return nil, nil // none, or a gitlink file (read-only whole)
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
	dirs, _ := innerGitDirs(gitPath)
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
	return readOnly, holds
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
	for _, g := range gitPaths {
		dirs, _ := innerGitDirs(g)
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
	for _, g := range gitPaths {
		dirs, truncated := innerGitDirs(g)
		if truncated {
			out = append(out, Violation{Kind: "filesystem", Rule: "planted-repository",
				Detail: fmt.Sprintf("%s holds more than %d submodule and work tree directories: git directories the command made beyond them were not checked", g, gitDirScanMax)})
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
