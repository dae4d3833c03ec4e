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

// pseudoFileSystems hold files that are no one's configuration and whose
// read may act or block: /proc/kmsg and tracefs's trace_pipe consume what
// they return (a host reader would miss it) and wait for more.
var pseudoFileSystems = map[int64]string{
	unix.PROC_SUPER_MAGIC: "proc", unix.SYSFS_MAGIC: "sysfs", unix.TRACEFS_MAGIC: "tracefs",
	unix.DEBUGFS_MAGIC: "debugfs", unix.SECURITYFS_MAGIC: "securityfs", unix.CGROUP_SUPER_MAGIC: "cgroup",
	unix.CGROUP2_SUPER_MAGIC: "cgroup2", unix.BPF_FS_MAGIC: "bpf", unix.EFIVARFS_MAGIC: "efivarfs",
	unix.PSTOREFS_MAGIC: "pstore", unix.SELINUX_MAGIC: "selinuxfs", unix.SMACK_MAGIC: "smackfs",
	unix.BINFMTFS_MAGIC: "binfmt_misc", unix.NSFS_MAGIC: "nsfs",
}

// openRegular opens p for reading without blocking if it is a regular
// file. agentbox reads, unconfined and maybe as root, files a command
// named (an include.path in a config it wrote), so p is looked at first
// through an O_PATH descriptor, which runs no driver's open (a watchdog
// device arms on open, a tape rewinds on close), and the file is then
// reopened through that descriptor, so what is read is what was looked at
// (readBounded then refuses a pseudo file system's). follow says whether
// a symbolic link at p is followed (else it is refused).
func openRegular(p string, follow bool) (*os.File, error) {
	flags := unix.O_PATH | unix.O_CLOEXEC
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(p, flags, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: p, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, &os.PathError{Op: "read", Path: p, Err: errNotRegular}
	}
	rfd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	return os.NewFile(uintptr(rfd), p), nil
}

// pseudoFileSystem names the pseudo file system f lies on
// (pseudoFileSystems), if it does. It asks through the raw connection, as
// Fd would put f in blocking mode.
func pseudoFileSystem(f *os.File) (string, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return "", false
	}
	var fs unix.Statfs_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstatfs(int(fd), &fs) }); err != nil || serr != nil {
		return "", false
	}
	name, ok := pseudoFileSystems[int64(fs.Type)]
	return name, ok
}
