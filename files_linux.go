package agentbox

import (
	"os"
	"os/exec"
	"reflect"
	"strconv"

	"golang.org/x/sys/unix"
)

// reopenWriter opens the pipe or FIFO f anew for writing, through /proc:
// a new open file description of the same pipe, non-blocking, so that
// Go's poller writes it and a write deadline can interrupt a write
// blocked on a full pipe, while the caller's own description keeps its
// flags. Only a description the caller may write is opened anew (a read
// end handed as Stdout must not become a writer into the caller's own
// input), and only when the new one keeps its other status flags
// (O_DIRECT's packets, O_APPEND): reopenedFlags. nil when it cannot (no
// /proc, a pipe whose inode the caller may not open, a FIFO with no
// reader, such a flag): the caller's descriptor is copied then, as before.
func reopenWriter(f *os.File) *os.File {
	rc, err := f.SyscallConn() // not f.Fd(), which would make the caller's description blocking
	if err != nil {
		return nil
	}
	fd := -1
	if rc.Control(func(src uintptr) {
		fl, ferr := unix.FcntlInt(src, unix.F_GETFL, 0)
		if ferr != nil || fl&unix.O_ACCMODE == unix.O_RDONLY {
			return
		}
		fd, err = unix.Open("/proc/self/fd/"+strconv.Itoa(int(src)), unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil && !reopenedFlags(fd, fl) {
			unix.Close(fd)
			fd = -1
		}
	}) != nil || fd < 0 {
		return nil
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// reopenedFlags gives fd, opened anew, the status flags of the caller's
// description (want) but notTakenOver, and reports whether it has them
// all.
func reopenedFlags(fd, want int) bool {
	want &^= notTakenOver
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, want|unix.O_NONBLOCK); err != nil {
		return false
	}
	got, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && got&want == want
}

// notTakenOver are the status flags of the caller's description that a
// description opened anew does not copy: the access mode (always write),
// O_NONBLOCK (always set, for the poller) and O_ASYNC. O_ASYNC would send
// SIGIO to the owner set with F_SETOWN, which a new description has none
// of (the caller's stays on its own description, whose flags do not
// change); copying the caller's descriptor instead, because of it, would
// leave a write the caller can turn blocking (os.File.Fd) and no deadline
// can interrupt.
const notTakenOver = unix.O_ACCMODE | unix.O_NONBLOCK | unix.O_ASYNC

// birthTime is the creation time of the file at p (not following a link)
// in nanoseconds, 0 where the file system does not keep one.
func birthTime(p string) int64 {
	var stx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &stx) != nil || stx.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	return stx.Btime.Sec*1e9 + int64(stx.Btime.Nsec)
}

// checkProcAttr refuses a cmd whose SysProcAttr asks for what the sandbox
// would silently not do: it makes the process attributes itself (its
// namespaces, credentials, root, terminal). Setpgid without a Pgid and
// Pdeathsig may be set: the init gets a process group of its own, and dies
// with agentbox, anyway.
func checkProcAttr(api string, cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		return nil
	}
	a := *cmd.SysProcAttr
	if a.Pgid == 0 {
		a.Setpgid = false
	}
	a.Pdeathsig = 0
	if !reflect.ValueOf(a).IsZero() {
		return configErr(api, "cmd.SysProcAttr sets process attributes the sandbox cannot honour (it makes its own namespaces, credentials and root); leave it nil, or set only Setpgid and Pdeathsig")
	}
	return nil
}
