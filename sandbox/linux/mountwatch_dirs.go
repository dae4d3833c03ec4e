//go:build linux

package linux

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirWatch wakes the mount watch when a host program moves a watched name
// away, or a directory on the way to it, which changes no mount: the
// protective mount stays on its dentry and goes with it to the new name
// (an editor's backup save renaming FILE to FILE~ before writing a new
// FILE, logrotate, `mv secrets secrets.old; mkdir secrets`, renameat2's
// RENAME_EXCHANGE), and the old name, now an ordinary one in the writable
// root, is the host's to fill. The mount table does not change, so only a
// watch on the directories sees it.
//
// An inotify watch lands on the inode the path leads to. In the sandbox a
// directory on the way to a watched name is the writable root's bind, a
// pin (a bind of the directory onto itself) or a host directory shown
// through a bind: the host's own directory either way, so the host's
// renames there are reported to the init.
type dirWatch struct {
	fd int // the inotify instance; -1 without one
	// names holds, per watch descriptor, the entries of its directory on
	// the way to a watched mount. An event naming any other entry is work
	// elsewhere in the directory (most often the program's own, in its
	// writable root), and needs no look.
	names map[int32]map[string]bool
	buf   []byte
	// failed says why some directory is not watched ("" if all are): the
	// watch then also looks every fallbackPeriod.
	failed string
}

// dirEvents are the events asked for. Only IN_MOVED_FROM is needed: a name
// that carries a mount leaves its place only by a rename, of itself or of
// a directory on the way (RENAME_EXCHANGE reports IN_MOVED_FROM on both
// names), as a removal of it detaches the mount and wakes the table's poll,
// and nothing can be created at a name that is still there. Leaving out
// IN_CREATE, IN_DELETE, IN_MODIFY and IN_ATTRIB keeps the program's own
// work in its writable root (a build, `npm install`, `rm -rf`) from waking
// the init at all. IN_Q_OVERFLOW, IN_IGNORED and IN_UNMOUNT come unasked,
// and each is answered by a look.
const dirEvents = unix.IN_MOVED_FROM | unix.IN_ONLYDIR

// fallbackPeriod is how often the watch looks at the names when some
// directory could not be watched (the user's inotify instances or watches
// used up by editors and file watchers, a directory the init may not
// read). Refusing to run then would leave a user with many editor windows
// without sandboxes; looking on a timer keeps the protection, with a
// window of up to this period instead of a wake-up. A look is a statx per
// watched name: a few microseconds, 100 times a second.
const fallbackPeriod = 10 * time.Millisecond

// watchDirs returns, for each directory to watch, the entries of it that
// lead to a watched mount: the parent of every watched name, and every
// directory above it up to the root of the first mount that is not a
// watched one (top: the writable root, scratch directory or shown
// directory it lies in, whose own renames on the host move nothing in the
// sandbox: its bind holds the directory, not its name). The pins on the
// way are watched mounts, so the walk goes through them.
func watchDirs(mounts []watchedMount, top func(dir string) bool) map[string]map[string]bool {
	dirs := make(map[string]map[string]bool)
	for _, m := range mounts {
		for p := m.path; p != "/"; p = filepath.Dir(p) {
			d := filepath.Dir(p)
			if dirs[d] == nil {
				dirs[d] = make(map[string]bool)
			}
			dirs[d][filepath.Base(p)] = true
			if top(d) {
				break
			}
		}
	}
	return dirs
}

// isOtherMountRoot returns a top for watchDirs: whether dir is the root of
// a mount that is not one of mounts. A directory statx cannot tell about
// counts as one: the walk stops there.
func isOtherMountRoot(mounts []watchedMount) func(string) bool {
	watched := make(map[uint64]bool, len(mounts))
	for _, m := range mounts {
		watched[m.id] = true
	}
	return func(dir string) bool {
		var st unix.Statx_t
		err := unix.Statx(unix.AT_FDCWD, dir, unix.AT_SYMLINK_NOFOLLOW|unix.AT_NO_AUTOMOUNT, unix.STATX_MNT_ID, &st)
		return err != nil || st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 && !watched[st.Mnt_id]
	}
}

// open makes the inotify instance and its watches. What fails is kept in
// failed, not returned (see fallbackPeriod).
func (d *dirWatch) open(dirs map[string]map[string]bool) {
	d.names = make(map[int32]map[string]bool, len(dirs))
	d.buf = make([]byte, 16<<10)
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		d.fd, d.failed = -1, fmt.Sprintf("inotify: %v", err)
		return
	}
	d.fd = fd
	for dir, names := range dirs {
		wd, err := unix.InotifyAddWatch(fd, dir, dirEvents)
		if err != nil {
			d.failed = fmt.Sprintf("inotify watch on %s: %v", dir, err)
			continue
		}
		// Two paths leading to one directory share a descriptor.
		if d.names[int32(wd)] == nil {
			d.names[int32(wd)] = make(map[string]bool)
		}
		for n := range names {
			d.names[int32(wd)][n] = true
		}
	}
}

// timeout is poll's timeout, in milliseconds: none unless some directory
// is not watched.
func (d *dirWatch) timeout() int {
	if d.failed == "" {
		return -1
	}
	return int(fallbackPeriod / time.Millisecond)
}

// drain reads every queued event and reports whether any calls for a look.
func (d *dirWatch) drain() (bool, error) {
	look := false
	for {
		n, err := unix.Read(d.fd, d.buf)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return look, nil
		case err != nil:
			return true, fmt.Errorf("read inotify events: %w", err)
		case n <= 0:
			return true, errors.New("read inotify events: nothing read")
		}
		if relevant(d.buf[:n], d.names) {
			look = true
		}
	}
}

// relevant reports whether the events in b call for a look: one about the
// queue or a watch itself, or a move of an entry in names.
func relevant(b []byte, names map[int32]map[string]bool) bool {
	look := false
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(b) {
			return true // cannot happen: the kernel returns whole events
		}
		name := trimNUL(b[unix.SizeofInotifyEvent:end])
		// (A map index by string(name) does not copy the name.)
		if ev.Mask&(unix.IN_Q_OVERFLOW|unix.IN_IGNORED|unix.IN_UNMOUNT) != 0 || len(name) == 0 || names[ev.Wd][string(name)] {
			look = true
		}
		b = b[end:]
	}
	return look
}

// trimNUL returns the name in b up to its first NUL (inotify pads names
// with NULs).
func trimNUL(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}
