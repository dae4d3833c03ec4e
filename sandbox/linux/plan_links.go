//go:build linux

package linux

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/sandbox"
)

// A bind mount holds a name, not the file: a command could write a file
// kept read-only through another name (a hard link) an earlier command
// made for it. The plan finds the files kept read-only that have other
// names (linkedUnder: the file itself, or the files inside a directory
// kept read-only whole), then those names in the writable roots
// (otherNames), and binds them read-only too. Nor does a read-only
// directory hold what its symbolic links lead to, which whoever reads it
// on the host follows (.git/hooks/pre-commit -> ../../scripts/pre-commit):
// the same walk finds them, for the plan to hold their targets. Both walks
// are bounded, and the sandbox is refused where a name cannot be ruled out.

// maxLinkWalk bounds the entries otherNames looks at; maxInsideWalk those
// linkedUnder looks at in one protected directory.
var (
	maxLinkWalk   = 200_000
	maxInsideWalk = 10_000
)

// gitDirRead are the names in a git directory that make git run code or
// read its configuration (hooks is walked whole). The rest of it (objects,
// refs, logs, lfs, annex) is not walked: it is large, and local clones and
// git-annex hard-link its objects, which git only reads as data.
var gitDirRead = []string{"config", "config.worktree", "commondir", "hooks"}

// gitDirInner are where a git directory keeps the git directories of its
// submodules and linked work trees, one per entry, each with its own
// gitDirRead (see innerGitProtection).
var gitDirInner = []string{"modules", "worktrees"}

// inside is what linkedUnder finds at a path kept read-only.
type inside struct {
	hard  []string // regular files with more than one name
	links []string // symbolic links
}

// linkedUnder returns the regular files with more than one name and the
// symbolic links at p, a file or a directory kept read-only whole (.husky,
// .hg, .config/git). Of a git directory (read-only whole unless commands
// may write to git) it looks at gitDirRead only.
//
// A directory there that the walk cannot look into is passed over where
// no program of the host's reaches a file inside by its name (see
// unreachable), and else refuses the sandbox: a hook manager may run a
// file by its name through a directory it may search but not list.
func linkedUnder(p string) (inside, error) {
	var in inside
	var blind error
	budget := maxInsideWalk
	w := linkWalk{budget: &budget,
		found: func(f string, _ *unix.Stat_t) { in.hard = append(in.hard, f) },
		link:  func(l string) { in.links = append(in.links, l) },
		opaque: func(d string) {
			if !unreachable(d) && blind == nil {
				blind = fmt.Errorf("%s: a directory it may search but not list", d)
			}
		}}
	var err error
	if isGitDirectory(p) {
		err = walkGitDir(p, w)
	} else {
		w.skip = func(dir string) bool { return filepath.Base(dir) == ".git" }
		err = w.run(p)
	}
	if err == nil {
		err = blind
	}
	if err != nil {
		return in, fmt.Errorf("%w: agentbox cannot look through %s for files with other names (hard links) or symbolic links, which a command could write them through (%v)", sandbox.ErrSetup, p, err)
	}
	return in, nil
}

// unreachable reports whether no program of the caller's reaches a file
// in the directory d by its name: d is deeper than a path can name (a
// command made it so), or the caller may not search it (a program would
// have to change its mode first).
func unreachable(d string) bool {
	return len(d)+1+unix.NAME_MAX > maxWalkPath || unix.Access(d, unix.X_OK) != nil
}

// isGitDirectory reports whether p is a git directory, by git's own test
// (a HEAD, an objects and a refs), whatever its name, or a directory
// named .git: a .git, or a
// submodule's .git/modules/NAME kept read-only through its gitlink. (A
// gitlink file, which names the repository elsewhere, is walked as any
// file.)
func isGitDirectory(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() {
		return false
	}
	if filepath.Base(p) == ".git" {
		return true
	}
	for _, f := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(p, f)); err != nil {
			return false
		}
	}
	return true
}

// walkGitDir looks at gitDirRead in the git directory g and in those kept
// inside it, as walkLinked does. Below modules/, a directory with a HEAD
// or a config is a git directory (git would take it for one), and one with
// neither is looked into (modules/libs/foo, the submodule libs/foo), as
// innerGitDirs does; a symbolic link there is reported to link (git
// follows it to the git directory it leads to).
func walkGitDir(g string, w linkWalk) error {
	budget, link := w.budget, w.link
	type item struct {
		dir   string
		names bool // a directory of submodule names, not a git directory
	}
	queue := []item{{g, false}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if !it.names {
			for _, name := range gitDirRead {
				if err := w.run(filepath.Join(it.dir, name)); err != nil {
					return err
				}
			}
		}
		kinds := gitDirInner
		if it.names {
			kinds = []string{""}
		}
		for _, kind := range kinds {
			dir := filepath.Join(it.dir, kind)
			entries, err := os.ReadDir(dir)
			switch {
			case err == nil, errors.Is(err, fs.ErrNotExist), errors.Is(err, unix.ENOTDIR):
			case errors.Is(err, fs.ErrPermission) && w.opaque != nil:
				w.opaque(dir) // git reaches its entries by name only if it may search it
			default:
				return err
			}
			for _, e := range entries {
				if *budget--; *budget < 0 {
					return fmt.Errorf("more than %d entries", maxInsideWalk)
				}
				p := filepath.Join(it.dir, kind, e.Name())
				switch {
				case e.Type()&fs.ModeSymlink != 0:
					if link != nil {
						link(p)
					}
				case !e.IsDir():
				case kind == "worktrees" || paths.HoldsAny(p, "HEAD", "config"):
					queue = append(queue, item{p, false})
				default:
					queue = append(queue, item{p, true})
				}
			}
		}
	}
	return nil
}

// otherNames returns the other names in the writable roots of files (each
// with more than one name); names outside the writable roots are read-only
// in the sandbox already. Directories the walk cannot look into are
// hidden (see hideOpaque).
func (b *planner) otherNames(files []string) ([]string, error) {
	return otherNamesIn(files, b.writable, "a command could write it through", b.addOpaque)
}

// otherNamesIn returns the other names in areas of files (each with more
// than one name; risk says what one left would allow), and tells opaque of
// the directories in areas it cannot look into (see linkWalk.opaque), for
// the caller to keep every command out of them. It walks at most
// maxLinkWalk entries; past them the sandbox is refused.
func otherNamesIn(files, areas []string, risk string, opaque func(string)) ([]string, error) {
	if len(files) == 0 {
		return nil, nil
	}
	type key struct{ dev, ino uint64 }
	want := make(map[key]string, len(files))
	for _, f := range files {
		var st unix.Stat_t
		if unix.Lstat(f, &st) == nil {
			want[key{st.Dev, st.Ino}] = f
		}
	}
	seen := make(map[string]bool)
	var others []string
	budget := maxLinkWalk
	for _, a := range areas {
		err := linkWalk{budget: &budget, opaque: opaque, found: func(p string, st *unix.Stat_t) {
			if f, ok := want[key{st.Dev, st.Ino}]; ok && f != p && !seen[p] {
				seen[p] = true
				others = append(others, p)
			}
		}}.run(a)
		if err != nil {
			return nil, fmt.Errorf("%w: %s has other names (hard links), which %s, and agentbox cannot find them all (%v): remove them (find %s -samefile %s)",
				sandbox.ErrSetup, files[0], risk, err, strings.Join(areas, " "), files[0])
		}
	}
	return others, nil
}

// maxWalkPath is the longest path a walk names: every directory it enters
// has entries whose paths fit (a directory at most this long is masked by
// its path inside the sandbox's root, whose prefix the init adds). A
// command may make a chain deeper than any path can name (red-team round
// 53); a walk reports a directory whose entries would be longer (see
// linkWalk.opaque).
const maxWalkPath = unix.PathMax - 1 - len(newRoot)

// walkLinked calls found for every file at or below root with more than
// one name (a regular file, or a socket, FIFO or device node: its other
// name reaches it as well), and link, if set, for every symbolic link, looking
// at *budget entries at most (an error past them); skip, if set, names
// directories below root not to enter. A directory it cannot look into
// fails the walk (see linkWalk).
func walkLinked(root string, budget *int, skip func(string) bool, found func(string, *unix.Stat_t), link func(string)) error {
	return linkWalk{budget: budget, skip: skip, found: found, link: link}.run(root)
}

// linkWalk is one walk of walkLinked's, which may also go on past the
// directories it cannot look into.
type linkWalk struct {
	budget *int
	skip   func(dir string) bool
	found  func(string, *unix.Stat_t)
	link   func(string)
	// opaque, if set, is told of each directory below the root the walk
	// cannot look into, which it leaves out: one the caller may not read
	// but could make readable (its own: a command of its could too), or
	// one whose entries' paths would pass maxWalkPath. Unset, such a
	// directory fails the walk. A directory neither the caller nor a
	// command of its may read (another user's) is left out either way.
	opaque func(dir string)
}

// run walks root (a missing root has nothing to find: the reduced tier
// makes no placeholders).
func (w linkWalk) run(root string) error {
	limit := *w.budget
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil && d == nil && p == root && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			if d != nil && d.IsDir() && errors.Is(err, fs.ErrPermission) && !ownedByCaller(p) {
				return fs.SkipDir // neither the caller nor the command may look in it
			}
			if d != nil && d.IsDir() && p != root && w.opaque != nil && errors.Is(err, fs.ErrPermission) {
				w.opaque(p)
				return fs.SkipDir
			}
			return err
		}
		if *w.budget--; *w.budget < 0 {
			return fmt.Errorf("more than %d entries", limit)
		}
		if d.IsDir() && p != root && w.skip != nil && w.skip(p) {
			return fs.SkipDir
		}
		if d.IsDir() && len(p)+1+unix.NAME_MAX > maxWalkPath {
			if w.opaque == nil || p == root {
				return fmt.Errorf("%s…: a directory deeper than a path can name", p[:64])
			}
			w.opaque(p)
			return fs.SkipDir
		}
		if d.Type()&fs.ModeSymlink != 0 && w.link != nil {
			w.link(p)
		}
		if d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		var st unix.Stat_t
		switch err := unix.Lstat(p, &st); {
		case err == nil:
			if st.Nlink > 1 {
				w.found(p, &st)
			}
		case errors.Is(err, unix.ENOENT):
			// Gone since the directory was read.
		case errors.Is(err, unix.EACCES) && !ownedByCaller(filepath.Dir(p)):
			return fs.SkipDir // a directory neither may search: its entries are out of reach
		case errors.Is(err, unix.EACCES) && w.opaque != nil && filepath.Dir(p) != root:
			w.opaque(filepath.Dir(p)) // readable, not searchable: the rest of it is left out
			return fs.SkipDir
		default:
			return fmt.Errorf("%s: %w", p, err)
		}
		return nil
	})
}

// ownedByCaller reports whether the caller owns p (or is root, who may do
// as an owner does).
func ownedByCaller(p string) bool {
	var st unix.Stat_t
	return os.Geteuid() == 0 || unix.Lstat(p, &st) == nil && int(st.Uid) == os.Geteuid()
}
