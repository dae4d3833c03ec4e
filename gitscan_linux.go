package agentbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
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
	changed []scanGrant
}

// scanGrant is a directory whose mode the scan changed: a descriptor of it
// (O_PATH, so that the restore cannot be turned to another file) and the
// mode it had.
type scanGrant struct {
	fd   int
	mode uint32
}

// grant makes dir, root or a directory below it, readable and searchable
// by its owner, if the caller owns it. dir is opened beneath root without
// following a symbolic link, and its mode changed through that descriptor.
func (a *scanAccess) grant(dir string) error {
	fd, err := a.open(dir)
	if err != nil {
		return fmt.Errorf("opening %s: %w", dir, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return fmt.Errorf("examining %s: %w", dir, err)
	}
	if st.Mode&0o500 == 0o500 {
		unix.Close(fd)
		return nil
	}
	if st.Uid != uint32(os.Geteuid()) {
		unix.Close(fd)
		return fmt.Errorf("%s belongs to user %d: %w", dir, st.Uid, fs.ErrPermission)
	}
	mode := st.Mode & 0o7777
	if err := unix.Chmod(fdPath(fd), mode|0o500); err != nil {
		unix.Close(fd)
		return fmt.Errorf("making %s readable: %w", dir, err)
	}
	a.changed = append(a.changed, scanGrant{fd: fd, mode: mode})
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
	return unix.Openat2(a.rootFD, rel, &unix.OpenHow{
		Flags:   flags | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

// restore gives the directories grant changed their modes back.
func (a *scanAccess) restore() {
	for _, g := range a.changed {
		_ = unix.Chmod(fdPath(g.fd), g.mode)
		unix.Close(g.fd)
	}
	a.changed = nil
	if a.opened {
		unix.Close(a.rootFD)
		a.opened = false
	}
}

// fdPath names the file open at fd, for the calls that take no descriptor.
func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

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

// quarantine renames the repository gitPath inside the writable root w to
// gitPath+quarantineSuffix, in its directory opened beneath w without
// following a symbolic link: a directory on the way that another sandbox
// on the same root replaced with a link (to the root itself, or to a host
// directory) cannot turn the rename into one of another repository.
func quarantine(w, gitPath string) error {
	a := scanAccess{root: w}
	defer a.restore()
	fd, err := a.open(filepath.Dir(gitPath))
	if err != nil {
		return fmt.Errorf("opening %s: %w", filepath.Dir(gitPath), err)
	}
	defer unix.Close(fd)
	name := filepath.Base(gitPath)
	return unix.Renameat(fd, name, fd, name+quarantineSuffix)
}
