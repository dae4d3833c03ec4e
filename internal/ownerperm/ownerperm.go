//go:build linux

// Package ownerperm gives agentbox, for a moment, a permission the owner
// of a directory may give itself. A sandboxed command runs as the caller
// and may chmod the caller's own directories in its writable roots: take
// the write permission off one where agentbox must make or remove a
// placeholder or rename a planted repository away, or the search or read
// permission off one on the way. agentbox, unconfined, gives the owner's
// permission back through descriptors opened without following links, and
// puts each mode back after.
package ownerperm

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNotOwner: the directory is another user's, whose mode the caller
// cannot change (nor, then, can a command it runs).
var ErrNotOwner = errors.New("the directory belongs to another user")

// Grant is a directory whose mode was changed: its own descriptor, so that
// Restore cannot reach another file, and the mode it had.
type Grant struct {
	fd   int
	mode uint32
}

// Add adds bits to the mode of the directory open at fd (an O_PATH
// descriptor will do), if the caller owns it. It returns a nil Grant when
// the bits are there already.
func Add(fd int, bits uint32) (*Grant, error) {
	mode, err := ownedMode(fd, bits)
	if err != nil || mode&bits == bits {
		return nil, err
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	g := &Grant{fd: dup, mode: mode}
	if err := unix.Chmod(FDPath(dup), g.mode|bits); err != nil {
		unix.Close(dup)
		return nil, err
	}
	return g, nil
}

// Give adds bits to the mode of the directory open at fd for good, if the
// caller owns it: for a directory about to be removed, whose mode no one
// will see again.
func Give(fd int, bits uint32) error {
	mode, err := ownedMode(fd, bits)
	if err != nil || mode&bits == bits {
		return err
	}
	return unix.Chmod(FDPath(fd), mode|bits)
}

// ownedMode returns the permission bits of the file open at fd, and
// ErrNotOwner when bits are missing and the file is another user's.
func ownedMode(fd int, bits uint32) (uint32, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, err
	}
	if st.Mode&bits != bits && int(st.Uid) != os.Geteuid() {
		return 0, ErrNotOwner
	}
	return st.Mode & 0o7777, nil
}

// Restore puts the directory's mode back. A nil Grant restores nothing.
func (g *Grant) Restore() error {
	if g == nil {
		return nil
	}
	err := unix.Chmod(FDPath(g.fd), g.mode)
	unix.Close(g.fd)
	return err
}

// With runs fn with bits added to the mode of the directory open at fd
// for the moment (Add), and the mode put back after.
func With(fd int, bits uint32, fn func() error) error {
	g, err := Add(fd, bits)
	if err != nil {
		return err
	}
	err = fn()
	if rerr := g.Restore(); err == nil {
		err = rerr
	}
	return err
}

// Searchable adds the owner's search permission to every directory on the
// way to dir (dir included) that the caller owns and may not search; undo
// puts their modes back. Directories are opened one name at a time without
// following a link.
func Searchable(dir string) (undo func(), err error) {
	var grants []*Grant
	undo = func() {
		for i := len(grants) - 1; i >= 0; i-- {
			_ = grants[i].Restore()
		}
	}
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return undo, err
	}
	defer func() { unix.Close(fd) }()
	for name := range strings.SplitSeq(strings.TrimPrefix(filepath.Clean(dir), "/"), "/") {
		if name == "" {
			continue
		}
		next, err := unix.Openat2(fd, name, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_BENEATH,
		})
		if err != nil {
			undo()
			return func() {}, err
		}
		unix.Close(fd)
		fd = next
		g, err := Add(fd, unix.S_IXUSR)
		if errors.Is(err, ErrNotOwner) {
			continue // then no command of the caller's took it away
		}
		if err != nil {
			undo()
			return func() {}, err
		}
		if g != nil {
			grants = append(grants, g)
		}
	}
	return undo, nil
}

// FDPath names the file open at fd (an O_PATH descriptor too), for the
// calls that take a path: its magic link.
func FDPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
