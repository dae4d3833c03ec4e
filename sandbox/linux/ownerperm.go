//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A command runs as the caller and may chmod the caller's directories in
// its writable roots: take away the write permission of a directory where
// agentbox must make or remove a placeholder, or the search permission of
// one on the way. agentbox, unconfined, gives itself the owner's
// permission back for the moment, through descriptors opened without
// following links, and puts the mode back after.

// withOwnerWrite runs fn with the owner's write permission added to the
// directory dir for the moment, if the caller owns it: a command could add
// it too, so a name there must be held (mayCreateIn), and the placeholder
// taken away again. The directory's mode is put back as it was.
func withOwnerWrite(dir int, fn func() error) error {
	var st unix.Stat_t
	if err := unix.Fstat(dir, &st); err != nil {
		return err
	}
	if int(st.Uid) != os.Geteuid() || st.Mode&unix.S_IWUSR != 0 {
		return unix.EACCES
	}
	g, err := grantOwner(dir, st.Mode, unix.S_IWUSR)
	if err != nil {
		return err
	}
	err = fn()
	if rerr := g.restore(); err == nil {
		err = rerr
	}
	return err
}

// searchable adds the owner's search permission, for the moment, to every
// directory on the way to dir (dir included) that the caller owns and may
// not search; undo puts their modes back. A directory it cannot open ends
// it with that error (undo is then a no-op).
func searchable(dir string) (undo func(), err error) {
	var changed []ownerGrant
	undo = func() {
		for i := len(changed) - 1; i >= 0; i-- {
			_ = changed[i].restore()
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
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || int(st.Uid) != os.Geteuid() || st.Mode&unix.S_IXUSR != 0 {
			continue
		}
		g, err := grantOwner(fd, st.Mode, unix.S_IXUSR)
		if err != nil {
			undo()
			return func() {}, err
		}
		changed = append(changed, g)
	}
	return undo, nil
}

// ownerGrant is a directory whose mode was changed: its own descriptor,
// so that the restore cannot reach another file, and the mode it had.
type ownerGrant struct {
	fd   int
	mode uint32
}

// grantOwner adds bits to the mode of the directory open at fd.
func grantOwner(fd int, mode, bits uint32) (ownerGrant, error) {
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return ownerGrant{}, err
	}
	g := ownerGrant{fd: dup, mode: mode & 0o7777}
	if err := unix.Chmod(procFD(dup), g.mode|bits); err != nil {
		unix.Close(dup)
		return ownerGrant{}, err
	}
	return g, nil
}

func (g ownerGrant) restore() error {
	err := unix.Chmod(procFD(g.fd), g.mode)
	unix.Close(g.fd)
	return err
}

// procFD names the file open at fd (an O_PATH descriptor too), for the
// calls that take a path: its magic link.
func procFD(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
