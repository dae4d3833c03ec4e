package paths

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks is how many symbolic links the kernel follows in one lookup.
const maxLinks = 40

// ErrTooManyLinks is Resolve's error for a chain longer than the kernel
// follows (a loop).
var ErrTooManyLinks = errors.New("too many levels of symbolic links")

// Resolution is where an absolute path leads, found as the kernel finds it.
type Resolution struct {
	// Dirs are the directories entered on the way: "/" first, then each one
	// in turn (those that hold a link on the way among them), without links.
	Dirs []string
	// Links are the symbolic links followed, in order, each by a path with
	// no link in it: a directory's as well as the last name's.
	Links []string
	// Target is where the path leads, with no link in it. It may be
	// missing: past the first missing name the rest is joined as written.
	Target string
	// ViaProc is set when a link followed lies on a procfs (/proc/self,
	// a process's cwd or fd/N): where it leads depends on who follows it,
	// and Target is only where it leads for this process.
	ViaProc bool
}

// Resolve follows the absolute path p a name at a time, as the kernel does:
// ".." after a link climbs from where the link leads, not from the link's
// own directory (filepath.Clean would take it away first). A path that
// does not exist (yet) resolves as far as it exists, a dangling link to
// where its target would be. After the kernel's 40 links it stops with
// ErrTooManyLinks, Target the last link; another error reading the way
// (a directory it may not search) ends it with that error.
func Resolve(p string) (Resolution, error) {
	r := Resolution{Dirs: []string{"/"}}
	resolved := "/"
	rest := strings.Split(p, "/")
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, name)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			// Nothing exists from here on, so nothing more can be a link.
			r.Target = filepath.Join(append([]string{next}, rest...)...)
			return r, nil
		}
		if err != nil {
			r.Target = next
			return r, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			r.Dirs = append(r.Dirs, next)
			continue
		}
		dest, err := os.Readlink(next)
		if err == nil && len(r.Links) == maxLinks {
			err = ErrTooManyLinks
		}
		if err != nil {
			r.Target = next
			return r, err
		}
		r.Links = append(r.Links, next)
		r.ViaProc = r.ViaProc || inProcfs(resolved)
		if filepath.IsAbs(dest) {
			resolved = "/"
		}
		rest = append(strings.Split(dest, "/"), rest...)
	}
	r.Target = resolved
	return r, nil
}
