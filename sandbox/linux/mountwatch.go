//go:build linux

package linux

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// mountWatch ends the sandbox when one of the mounts that alone keep a
// path hidden or read-only (mountOp.Watch) vanishes. A deny path or a
// protected file inside a writable root is covered by a mount on its own
// name, and Landlock, which grants the whole root, cannot withhold a right
// below it. When a host program renames a file over that name or removes
// it (git renaming config.lock over .git/config, an editor's or npm's
// atomic rewrite, bash saving its history), the kernel detaches every
// mount on the replaced name in every mount namespace (since Linux 3.18),
// and nothing can stop it: the sandbox would then see the host's new file
// with the root's rights. The program cannot unmount anything itself
// (seccomp refuses every mount call) and nothing else changes the
// sandbox's mount table once it runs (its tree is private: the host's
// mounts and unmounts do not reach it), so a watched mount that is gone
// was taken by the host.
//
// A host rename of such a name *away* (an editor's backup save renaming
// FILE to FILE~, `mv secrets secrets.old; mkdir secrets`, RENAME_EXCHANGE),
// or of a directory on the way to it, detaches nothing: the mount goes
// with its dentry to the new name, and the old name, now an ordinary entry
// of the writable root, is the host's to fill. Only the directories see
// that (dirWatch).
//
// The init opens its /proc/self/mountinfo once the root is built, and an
// inotify instance watching the directories on the way to each watched
// name, and a thread of its own waits on both in poll(2): the kernel
// reports POLLPRI on every change of the namespace's mount table, and
// POLLIN on a move in those directories. On either the watched names are
// looked at again (a statx each), on a table change the table is read too,
// and if a watched mount is no longer where it was the whole tree is
// killed at once. Between the host's rename and the kill lies the thread's
// wake-up and that look (see README: a program that keeps opening the
// name may win that race).
type mountWatch struct {
	mounts []watchedMount
	fd     int // /proc/self/mountinfo; -1 until watching
	buf    []byte
	dirs   dirWatch
	// watching is set once start has opened fd and dirs (there are
	// mounts to watch).
	watching bool
	// stopped holds why the sandbox was stopped, once it was.
	stopped atomic.Pointer[string]
	// program is the program's pid once it runs, the leader of its own
	// process group.
	program atomic.Int32
}

// watchedMount is a mount to keep: its ID (mountinfo's first field, and
// statx's stx_mnt_id) and where it is, in the sandbox's paths.
type watchedMount struct {
	id   uint64
	path string
	dir  bool
}

// note records the mount the op at dst (the path in the new root being
// built) has just made: sandboxPath is where the program sees it. An op
// may make none (a deny path that is missing): dst is then no mount's
// root, and nothing is recorded.
func (w *mountWatch) note(dst, sandboxPath string) error {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, dst, unix.AT_SYMLINK_NOFOLLOW|unix.AT_NO_AUTOMOUNT, unix.STATX_MNT_ID, &st)
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EACCES):
		return nil // the op found nothing there to mount on (applyOp)
	case err != nil:
		return fmt.Errorf("statx %s: %w", sandboxPath, err)
	case st.Mask&unix.STATX_MNT_ID == 0 || st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT == 0:
		return fmt.Errorf("the kernel does not tell the mount of %s (statx: Linux 5.8)", sandboxPath)
	case st.Attributes&unix.STATX_ATTR_MOUNT_ROOT == 0:
		return nil
	}
	w.mounts = append(w.mounts, watchedMount{id: st.Mnt_id, path: sandboxPath, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR})
	return nil
}

// start opens the mount table, from the sandbox's root (after pivot_root:
// mountinfo shows only what is reachable from the root its reader had
// when it opened it), and the directories' watch, and watches both from a
// thread of its own. A change between the mounts and the watches is found
// by the first look, which the thread takes before it first waits.
// Without mounts to watch it does nothing.
func (w *mountWatch) start() error {
	w.fd = -1
	if len(w.mounts) == 0 {
		return nil
	}
	fd, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open the mount table: %w", err)
	}
	w.fd = fd
	w.buf = make([]byte, 0, 32<<10)
	w.dirs.open(watchDirs(w.mounts, isOtherMountRoot(w.mounts)))
	w.watching = true
	// Files first: they are what host programs replace by a rename, and
	// look meets them sooner (a statx each, a few microseconds).
	slices.SortStableFunc(w.mounts, func(a, b watchedMount) int { return cmp.Compare(b2i(a.dir), b2i(b.dir)) })
	if !ahead.threads {
		spareThreads(watchSpareThreads)
	}
	go w.run()
	return nil
}

// watchSpareThreads is how many OS threads the init's runtime is made to
// start before the program: the watch keeps one to itself, and the init's
// other goroutines may need another while the main one waits in a system
// call.
const watchSpareThreads = 3

// spareThreads makes the Go runtime start n OS threads now and keep them
// idle. The init's RLIMIT_NPROC (and the cgroup's pids.max) counts its
// threads with the program's processes: a fork bomb fills the count at
// once, and a thread the runtime wanted to start after that fails, which
// the runtime cannot survive (TestShellForkBomb saw the init die so, the
// watch having taken one thread for itself). Each goroutine below locks a
// thread and waits, so that all n are held at once; unlocked before they
// end, the threads stay with the runtime for later.
func spareThreads(n int) {
	var locked, done sync.WaitGroup
	release := make(chan struct{})
	for range n {
		locked.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			locked.Done()
			<-release
			runtime.UnlockOSThread()
		}()
	}
	locked.Wait()
	close(release)
	done.Wait()
}

// timedLayer names, for the layer list, a watch that could not have every
// directory watched and looks on a timer instead ("" when it needs none):
// the user's inotify instances may be used up by editors, or by the user's
// other sandboxes (each may hold its share), and the user should know the
// window is then up to fallbackPeriod.
func (w *mountWatch) timedLayer() string {
	if w.dirs.failed == "" {
		return ""
	}
	return fmt.Sprintf("%s: a look every %v, %s)", LayerTimedWatch, fallbackPeriod, w.dirs.failed)
}

// run looks at the names, then again after every change, until a watched
// mount is gone: it then stops the sandbox.
func (w *mountWatch) run() {
	runtime.LockOSThread() // a thread of its own, woken straight from poll
	table := false         // the first look takes the names alone (see look)
	for {
		gone, err := w.look(table)
		if err != nil {
			w.stop(fmt.Sprintf("the sandbox's mount table could not be read (%v): the sandbox was stopped, as a protective mount could have been detached", err))
			return
		}
		if gone != "" {
			w.stop(fmt.Sprintf("the protective mount on %s was detached (a host program renamed or removed that name, or moved it or a directory on the way away, while the command ran): the sandbox was stopped", gone))
			return
		}
		if table, err = w.wait(); err != nil {
			w.stop(fmt.Sprintf("the sandbox's mount table could not be watched (%v): the sandbox was stopped", err))
			return
		}
	}
}

// wait returns when a look is due, and whether the mount table changed: a
// move in a watched directory calls for the names' look alone, an event
// there that concerns no watched name for none.
func (w *mountWatch) wait() (table bool, err error) {
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLPRI}, {Fd: int32(w.dirs.fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, w.dirs.timeout())
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return false, err
		case n == 0:
			return false, nil // the fallback's period
		}
		table = fds[0].Revents != 0
		moved := false
		if fds[1].Revents != 0 {
			if moved, err = w.dirs.drain(); err != nil {
				return false, err
			}
		}
		if table || moved {
			return table, nil
		}
	}
}

// look returns the path of the first watched mount that is gone ("" if
// none is). Its names are looked at first, a statx each: a name that now
// leads to another mount, or to nothing, has lost its mount (nothing mounts
// on top of one, and the directories on the way to each are mountpoints
// too, which the program cannot rename: see pins), and that answer comes
// several times sooner than the table's. After a change (table), the
// table decides otherwise; the first look, which only covers the moments
// between the mounts and the open, spares every command that read.
func (w *mountWatch) look(table bool) (string, error) {
	for _, m := range w.mounts {
		if id, err := mountIDOf(m.path); lost(id, m.id, err) {
			return m.path, nil
		}
	}
	if !table {
		return "", nil
	}
	b, err := w.read()
	if err != nil {
		return "", err
	}
	return firstMissing(b, w.mounts), nil
}

// lost tells whether a look at a watched name that answered id, err shows
// its mount (want) gone. Any failure of the lookup but a passing one
// counts: a directory on the way swapped for a file (ENOTDIR), a link loop
// (ELOOP) or a closed directory (EACCES) hide the mount from the name as
// surely as a move (ENOENT) does, and a name the watch cannot see it
// cannot watch any longer: the host may put a new tree there unseen.
func lost(id, want uint64, err error) bool {
	switch {
	case err == nil:
		return id != want
	case errors.Is(err, unix.EINTR), errors.Is(err, unix.ENOMEM):
		return false
	}
	return true
}

// mountIDOf returns the ID of the mount the name p is on (its own, if it
// is a mountpoint), without following a link at its end.
func mountIDOf(p string) (uint64, error) {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW|unix.AT_NO_AUTOMOUNT, unix.STATX_MNT_ID, &st)
	return st.Mnt_id, err
}

// read reads the whole table. Each read(2) of mountinfo takes the mounts
// from where the last one stopped by their order in the namespace, so a
// mount that stays is listed even when others go meanwhile.
func (w *mountWatch) read() ([]byte, error) {
	b := w.buf[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := unix.Pread(w.fd, b[len(b):cap(b)], int64(len(b)))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			w.buf = b
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// firstMissing returns the path of the first of mounts whose ID no line of
// the mountinfo table starts with ("" if there is none).
func firstMissing(table []byte, mounts []watchedMount) string {
	present := make(map[uint64]bool, bytes.Count(table, []byte{'\n'})+1)
	for len(table) > 0 {
		line := table
		if i := bytes.IndexByte(table, '\n'); i >= 0 {
			line, table = table[:i], table[i+1:]
		} else {
			table = nil
		}
		f, _, _ := bytes.Cut(line, []byte{' '})
		if id, err := strconv.ParseUint(string(f), 10, 64); err == nil {
			present[id] = true
		}
	}
	for _, m := range mounts {
		if !present[m.id] {
			return m.path
		}
	}
	return ""
}

// stop kills the sandbox's tree, once, and keeps why for msgExit. The
// program's process group goes first: kill(-1) walks every process of the
// machine, which takes from 10 µs to near a millisecond on a busy host,
// while a group is found at once.
func (w *mountWatch) stop(why string) {
	if w.stopped.CompareAndSwap(nil, &why) {
		if pid := w.program.Load(); pid > 0 {
			_ = unix.Kill(-int(pid), unix.SIGKILL)
		}
		killSandbox()
	}
}

// started notes the program's pid, and kills the program if the watch
// stopped the sandbox meanwhile: its kill may have come before the
// program existed.
func (w *mountWatch) started(pid int) {
	w.program.Store(int32(pid))
	if w.reason() != "" {
		killSandbox()
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// reason says why the sandbox was stopped ("" if it was not).
func (w *mountWatch) reason() string {
	if p := w.stopped.Load(); p != nil {
		return *p
	}
	return ""
}
