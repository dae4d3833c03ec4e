package agentbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/internal/ownerperm"
)

// scanAccess lets a scan of a writable root list and search the caller's
// own directories that a command took the owner's read or search
// permission off (chmod 0311 hides the names in a directory from a listing
// while git on the host still finds a .git in it), and gives them their
// modes back when the scan is done (restore).
type scanAccess struct {
	root    string // the writable root scanned
	rootFD  int    // O_PATH descriptor of root, once opened
	opened  bool   // rootFD is open
	changed []*ownerperm.Grant
}

// grant makes dir, root or a directory below it, readable and searchable
// by its owner, if the caller owns it. dir is opened beneath root without
// following a symbolic link, and its mode changed through that descriptor.
func (a *scanAccess) grant(dir string) error {
	fd, err := a.open(dir)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dir, err)
	}
	defer unix.Close(fd)
	g, err := ownerperm.Add(fd, unix.S_IRUSR|unix.S_IXUSR)
	switch {
	case errors.Is(err, ownerperm.ErrNotOwner):
		return fmt.Errorf("%s: %w: %w", dir, err, fs.ErrPermission)
	case err != nil:
		return fmt.Errorf("making %s readable: %w", dir, err)
	case g != nil:
		a.changed = append(a.changed, g)
	}
	return nil
}

// open opens dir (O_PATH) beneath root, refusing symbolic links.
func (a *scanAccess) open(dir string) (int, error) {
	return a.openFlags(dir, unix.O_PATH|unix.O_DIRECTORY)
}

// openFlags opens dir with flags beneath root, refusing symbolic links.
func (a *scanAccess) openFlags(dir string, flags uint64) (int, error) {
	rel, err := filepath.Rel(a.root, dir)
	if err != nil {
		return -1, err
	}
	if !a.opened {
		fd, err := unix.Open(a.root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		a.rootFD, a.opened = fd, true
	}
	if rel == "." {
		// The root itself: looking "." up in it would need the search
		// permission a command may have taken off it.
		return unix.Open(a.root, int(flags)|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	}
	return unix.Openat2(a.rootFD, rel, &unix.OpenHow{
		Flags:   flags | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

// restore gives the directories grant changed their modes back.
func (a *scanAccess) restore() {
	for _, g := range a.changed {
		_ = g.Restore()
	}
	a.changed = nil
	if a.opened {
		unix.Close(a.rootFD)
		a.opened = false
	}
}

// list lists dir, opened beneath root without following a symbolic link:
// a directory another sandbox on the same root replaced with a link since
// it was listed is not followed to where the link leads.
func (a *scanAccess) list(dir string) ([]os.DirEntry, error) {
	fd, err := a.openFlags(dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	return f.ReadDir(-1)
}

// read reads the file p below root, opened beneath it without following
// a symbolic link and without blocking (a FIFO the command made), if it is
// a small regular file (readBounded).
func (a *scanAccess) read(p string) ([]byte, error) {
	fd, err := a.openFlags(p, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return readBounded(os.NewFile(uintptr(fd), p))
}

// quarantine renames the repository gitPath inside the writable root w to
// gitPath+quarantineSuffix, in its directory opened beneath w without
// following a symbolic link: a directory on the way that another sandbox
// on the same root replaced with a link (to the root itself, or to a host
// directory) cannot turn the rename into one of another repository. Where
// that name is taken (a command may make it first, to make the rename
// fail), a name with a random part is used instead (quarantineNames). It
// returns the name given.
func quarantine(w, gitPath string) (string, error) {
	a := scanAccess{root: w}
	defer a.restore()
	fd, err := a.open(filepath.Dir(gitPath))
	if err != nil {
		return "", fmt.Errorf("opening %s: %w", filepath.Dir(gitPath), err)
	}
	defer unix.Close(fd)
	name := filepath.Base(gitPath)
	for _, to := range quarantineNames(name) {
		rename := func() error {
			err := unix.Renameat2(fd, name, fd, to, unix.RENAME_NOREPLACE)
			if errors.Is(err, unix.EINVAL) {
				// A file system without RENAME_NOREPLACE: a taken name that
				// is a non-empty directory still fails (ENOTEMPTY).
				err = unix.Renameat(fd, name, fd, to)
			}
			return err
		}
		err = rename()
		if errors.Is(err, unix.EACCES) {
			// The command took the write permission off its directory: the
			// owner's, given back for the moment.
			err = ownerperm.With(fd, unix.S_IWUSR|unix.S_IXUSR, rename)
		}
		if !errors.Is(err, unix.EEXIST) && !errors.Is(err, unix.ENOTEMPTY) && !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.EISDIR) {
			return to, err
		}
	}
	return "", err
}
