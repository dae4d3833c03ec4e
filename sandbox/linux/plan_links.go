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

	"github.com/agentbox-dev/agentbox/sandbox"
)

// A bind mount holds a name, not the file: a command could write a file
// kept read-only through another name (a hard link) an earlier command
// made for it. The plan finds the files kept read-only that have other
// names (linkedUnder: the file itself, or the files inside a directory
// kept read-only whole), then those names in the writable roots
// (otherNames), and binds them read-only too. Both walks are bounded, and
// the sandbox is refused where a name cannot be ruled out.

// maxLinkWalk bounds the entries otherNames looks at; maxInsideWalk those
// linkedUnder looks at in one protected directory.
var (
	maxLinkWalk   = 200_000
	maxInsideWalk = 10_000
)

// linkedUnder returns the regular files with more than one name at p, a
// file or a directory kept read-only whole (.husky, .hg, .config/git). A
// git directory is not walked: its hooks and config are protected on
// their own where a command could have written them, and its objects are
// many and hard-linked by local clones.
func linkedUnder(p string) ([]string, error) {
	if filepath.Base(p) == ".git" {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			return nil, nil
		}
	}
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // not made (the reduced tier makes no placeholders)
	}
	var out []string
	budget := maxInsideWalk
	err := walkLinked(p, &budget, func(dir string) bool { return filepath.Base(dir) == ".git" },
		func(f string, _ *unix.Stat_t) { out = append(out, f) })
	if err != nil {
		return nil, fmt.Errorf("%w: agentbox cannot look through %s for files with other names (hard links), which a command could write them through (%v)", sandbox.ErrSetup, p, err)
	}
	return out, nil
}

// otherNames returns the other names in the writable roots of files (each
// with more than one name); names outside the writable roots are read-only
// in the sandbox already.
func (b *planner) otherNames(files []string) ([]string, error) {
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
	for _, w := range b.writable {
		err := walkLinked(w, &budget, nil, func(p string, st *unix.Stat_t) {
			if f, ok := want[key{st.Dev, st.Ino}]; ok && f != p && !seen[p] {
				seen[p] = true
				others = append(others, p)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %s has other names (hard links), which a command could write it through, and agentbox cannot find them all (%v): remove them (find %s -samefile %s)",
				sandbox.ErrSetup, files[0], err, strings.Join(b.writable, " "), files[0])
		}
	}
	return others, nil
}

// walkLinked calls found for every regular file at or below root with
// more than one name, looking at *budget entries at most (an error past
// them); skip, if set, names directories below root not to enter. A
// directory it may not read is skipped only where neither the caller nor
// a command of its could read it either (another user's); else the walk
// fails.
func walkLinked(root string, budget *int, skip func(string) bool, found func(string, *unix.Stat_t)) error {
	limit := *budget
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && errors.Is(err, fs.ErrPermission) && !ownedByCaller(p) {
				return fs.SkipDir // neither the caller nor the command may look in it
			}
			return err
		}
		if *budget--; *budget < 0 {
			return fmt.Errorf("more than %d entries", limit)
		}
		if d.IsDir() && p != root && skip != nil && skip(p) {
			return fs.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil && st.Nlink > 1 {
			found(p, &st)
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
