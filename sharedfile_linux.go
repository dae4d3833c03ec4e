//go:build linux

package agentbox

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sharedFile is a file handed to the program as it is (a terminal or
// another character device, that the caller also holds: see
// streamKind), with the state a program can change on it that outlives the
// program: the open file description's status flags (O_NONBLOCK,
// O_APPEND, O_ASYNC: a terminal left non-blocking makes the user's shell
// exit on its next read), its permissions and owner (the program is its
// owner's, and could leave the user's terminal world-writable) and, for a
// terminal, its modes (raw, no echo), exclusive mode (every later open by
// an ordinary user fails) and suspended output; and, as the description's
// own state, which signal O_ASYNC sends to whom (F_SETSIG, F_SETOWN: a
// later program of the user's that asks for SIGIO on the terminal would
// get SIGKILL instead) and the locks held through it (an flock taken by
// the program would stay until the user's shell closes the terminal, and
// every other opener that locks it would wait); and, for a pseudo
// terminal's master (a harness driving a program through a pty may hand
// it on), the pair's packet mode (every later read of the harness would
// begin with a status byte) and the slave's lock (every later open of
// /dev/pts/N would fail). agentbox records it
// before the program starts and puts it back once the program's whole
// tree is gone, so that a sandboxed command changes nothing of the
// caller's terminal beyond its own run, even when it is killed in the
// middle of a full-screen program; but a terminal's modes while another
// job holds its foreground are that job's, and stay (see restore).
type sharedFile struct {
	fd       int // a duplicate: the caller may close its file after Start
	flags    int
	termios  *unix.Termios // nil: not a terminal
	excl     int
	master   []int  // a pty master's masterState; nil: not a master
	mode     uint32 // permission bits and owner, which the program, as the
	uid, gid uint32 // file's owner, could change (fchmod 0666)
	sig      int    // F_GETSIG: the signal O_ASYNC sends (0: SIGIO)
	owner    fOwner // F_GETOWN_EX: whom it goes to
	// locked says the description held an flock or OFD lock before the
	// program started (or that could not be read): the caller's, which
	// restore leaves alone.
	locked bool
}

// fOwner is struct f_owner_ex.
type fOwner struct {
	typ int32
	pid int32
}

func getOwner(fd int) (fOwner, error) {
	var o fOwner
	_, _, errno := unix.Syscall(unix.SYS_FCNTL, uintptr(fd), unix.F_GETOWN_EX, uintptr(unsafe.Pointer(&o)))
	if errno != 0 {
		return o, errno
	}
	return o, nil
}

func setOwner(fd int, o fOwner) error {
	_, _, errno := unix.Syscall(unix.SYS_FCNTL, uintptr(fd), unix.F_SETOWN_EX, uintptr(unsafe.Pointer(&o)))
	if errno != 0 {
		return errno
	}
	return nil
}

// descriptionLocked reports whether the open file description fd refers
// to holds an flock or OFD lock (the locks restore would release through
// it); true when it cannot tell. The description's own locks are listed in
// fd's fdinfo (Linux 3.15 on): /proc/locks lists every lock of the system
// too, but reading it waits for an RCU grace period (the kernel takes a
// per-CPU write lock to list them), 5 to 25 ms on a virtual machine, paid
// by every command of a caller with a terminal or /dev/null for a stream.
func descriptionLocked(fd int) bool {
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return true
	}
	// "lock:\t1: FLOCK  ADVISORY  WRITE 1234 00:19:3 0 EOF"
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, "lock:")
		if !ok {
			continue
		}
		if f := strings.Fields(rest); len(f) > 1 && (f[1] == "FLOCK" || f[1] == "OFDLCK") {
			return true
		}
	}
	return false
}

// shareFile records f's state; nil when it cannot be read.
func shareFile(f *os.File) *sharedFile {
	fd, err := dupFD(f)
	if err != nil {
		return nil
	}
	s := &sharedFile{fd: fd}
	var st unix.Stat_t
	if s.flags, err = unix.FcntlInt(uintptr(s.fd), unix.F_GETFL, 0); err == nil {
		err = unix.Fstat(s.fd, &st)
	}
	if err != nil {
		unix.Close(s.fd)
		return nil
	}
	s.mode, s.uid, s.gid = st.Mode&0o7777, st.Uid, st.Gid
	if s.sig, err = unix.FcntlInt(uintptr(s.fd), unix.F_GETSIG, 0); err == nil {
		s.owner, err = getOwner(s.fd)
	}
	if err != nil {
		unix.Close(s.fd)
		return nil
	}
	s.locked = descriptionLocked(s.fd)
	if t, err := unix.IoctlGetTermios(s.fd, unix.TCGETS); err == nil {
		s.termios = t
		s.excl, _ = unix.IoctlGetInt(s.fd, unix.TIOCGEXCL)
		if _, err := unix.IoctlGetInt(s.fd, unix.TIOCGPTN); err == nil {
			s.master = recordMaster(s.fd)
		}
	}
	return s
}

// restore puts the recorded state back where it changed, releases the
// duplicate, and names what it restored and what it left as the program
// set it: a terminal's modes while another process group of agentbox's
// session holds the terminal's foreground are that job's (a passphrase
// read with echo off), not the program's to undo.
func (s *sharedFile) restore() (restored, left []string) {
	if s == nil {
		return nil, nil
	}
	defer unix.Close(s.fd)
	if fl, err := unix.FcntlInt(uintptr(s.fd), unix.F_GETFL, 0); err == nil && fl != s.flags {
		if _, err := unix.FcntlInt(uintptr(s.fd), unix.F_SETFL, s.flags); err == nil {
			restored = append(restored, "file status flags")
		}
	}
	var st unix.Stat_t
	if unix.Fstat(s.fd, &st) == nil {
		if (st.Uid != s.uid || st.Gid != s.gid) && unix.Fchown(s.fd, int(s.uid), int(s.gid)) == nil {
			restored = append(restored, "file owner")
		}
		if st.Mode&0o7777 != s.mode && unix.Fchmod(s.fd, s.mode) == nil {
			restored = append(restored, "file permissions")
		}
	}
	if sig, err := unix.FcntlInt(uintptr(s.fd), unix.F_GETSIG, 0); err == nil && sig != s.sig {
		if _, err := unix.FcntlInt(uintptr(s.fd), unix.F_SETSIG, s.sig); err == nil {
			restored = append(restored, "file signal")
		}
	}
	if o, err := getOwner(s.fd); err == nil && o != s.owner && setOwner(s.fd, s.owner) == nil {
		restored = append(restored, "file signal owner")
	}
	if !s.locked {
		// The locks held through the description now are the program's:
		// none was before it started. Whether it took any cannot be read
		// (its own are not listed once it has exited); releasing none is
		// a no-op.
		_ = unix.Flock(s.fd, unix.LOCK_UN)
		_ = unix.FcntlFlock(uintptr(s.fd), unix.F_OFD_SETLK, &unix.Flock_t{Type: unix.F_UNLCK})
	}
	if s.termios == nil {
		return restored, nil
	}
	withoutSIGTTOU(func() {
		if t, err := unix.IoctlGetTermios(s.fd, unix.TCGETS); err == nil && *t != *s.termios {
			switch {
			case othersForeground(s.fd):
				left = append(left, "terminal modes")
			case unix.IoctlSetTermios(s.fd, unix.TCSETS, s.termios) == nil:
				restored = append(restored, "terminal modes")
			}
		}
		if excl, err := unix.IoctlGetInt(s.fd, unix.TIOCGEXCL); err == nil && excl != s.excl {
			req := uint(unix.TIOCNXCL)
			if s.excl != 0 {
				req = unix.TIOCEXCL
			}
			if unix.IoctlSetInt(s.fd, req, 0) == nil {
				restored = append(restored, "terminal exclusive mode")
			}
		}
		restored = append(restored, s.restoreMaster()...)
		// Whether output is suspended cannot be read; resuming output that
		// runs is a no-op.
		_ = unix.IoctlSetInt(s.fd, unix.TCXONC, unix.TCOON)
	})
	return restored, left
}

// masterState is the state of a pty master that sharedFile puts back:
// the requests that read and set it, and its name in restore's report.
var masterState = []struct {
	get, set uint
	name     string
}{
	{unix.TIOCGPKT, unix.TIOCPKT, "pty packet mode"},
	{unix.TIOCGPTLCK, unix.TIOCSPTLCK, "pty slave lock"},
}

// recordMaster reads masterState from the pty master open at fd; nil when
// any of it cannot be read.
func recordMaster(fd int) []int {
	vals := make([]int, len(masterState))
	for i, st := range masterState {
		v, err := unix.IoctlGetInt(fd, st.get)
		if err != nil {
			return nil
		}
		vals[i] = v
	}
	return vals
}

// restoreMaster puts a pty master's packet mode and slave lock back
// (TestRedteam41PtyMasterPacketMode, TestRedteam41PtyMasterSlaveLock).
func (s *sharedFile) restoreMaster() (restored []string) {
	for i, want := range s.master {
		st := masterState[i]
		if v, err := unix.IoctlGetInt(s.fd, st.get); err == nil && v != want && unix.IoctlSetPointerInt(s.fd, st.set, want) == nil {
			restored = append(restored, st.name)
		}
	}
	return restored
}

// othersForeground reports whether fd is agentbox's controlling terminal
// and another process group holds its foreground.
func othersForeground(fd int) bool {
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err == nil && pgrp != 0 && pgrp != unix.Getpgrp()
}

// withoutSIGTTOU runs f on a thread that blocks SIGTTOU: a caller in a
// background process group of the terminal would otherwise be stopped by
// its own restoring ioctls (the kernel lets a process that blocks SIGTTOU
// make them). f is skipped when the mask cannot be set.
func withoutSIGTTOU(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set, old unix.Sigset_t
	const word = uint(unsafe.Sizeof(set.Val[0]) * 8)
	bit := uint(unix.SIGTTOU - 1)
	set.Val[bit/word] |= 1 << (bit % word)
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old); err != nil {
		return
	}
	defer unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil) //nolint:errcheck // restoring the mask it just read
	f()
}

// sharedFiles are the files of one program.
type sharedFiles []*sharedFile

// add records f, when it can.
func (sf *sharedFiles) add(f *os.File) {
	if s := shareFile(f); s != nil {
		*sf = append(*sf, s)
	}
}

// restore restores every file once; it returns what it restored and what
// it left as the program set it.
func (sf *sharedFiles) restore() (restored, left []string) {
	for _, s := range *sf {
		r, l := s.restore()
		restored, left = appendNew(restored, r), appendNew(left, l)
	}
	*sf = nil // each duplicate closed: a second call must not touch those numbers, by then maybe another file's
	return restored, left
}

// appendNew appends the elements of add that list does not hold yet.
func appendNew(list, add []string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}
