//go:build linux

package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"lease":     probeLease,
		"flock":     probeFlock,
		"chattr":    probeChattr,
		"getflags":  probeGetFlags,
		"nsioctl":   probeNSIoctl,
		"pidfdns":   probePidfdNS,
		"procwrite": probeProcWrite,
		"auditsend": probeAuditSend,
		"memfdexec": probeMemfdExec,
	})
	for name, f := range map[string]func() error{
		"sched_deadline": func() error {
			// struct sched_attr (56 bytes): size, policy, flags, nice,
			// priority, runtime, deadline, period.
			var attr [56]byte
			binary.LittleEndian.PutUint32(attr[0:], 56)
			binary.LittleEndian.PutUint32(attr[4:], 6 /* SCHED_DEADLINE */)
			binary.LittleEndian.PutUint64(attr[24:], 10_000_000)
			binary.LittleEndian.PutUint64(attr[32:], 30_000_000)
			binary.LittleEndian.PutUint64(attr[40:], 30_000_000)
			return rawCall(unix.SYS_SCHED_SETATTR, 0, uintptr(unsafe.Pointer(&attr[0])), 0)
		},
		"ioprio_rt": func() error {
			return rawCall(unix.SYS_IOPRIO_SET, 1 /* IOPRIO_WHO_PROCESS */, 0, 1<<13 /* IOPRIO_CLASS_RT, level 0 */)
		},
		"prctl_set_mm": func() error {
			return rawCall(unix.SYS_PRCTL, unix.PR_SET_MM, unix.PR_SET_MM_START_BRK, 0, 0, 0)
		},
		"vhangup": func() error { return rawCall(unix.SYS_VHANGUP) },
		"mlockall_future": func() error {
			// Within RLIMIT_MEMLOCK this locks nothing yet; the point is
			// that a raised limit would let every later page be pinned.
			var l unix.Rlimit
			if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &l); err != nil {
				return err
			}
			return unix.Setrlimit(unix.RLIMIT_MEMLOCK, &unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY})
		},
		"oom_unkillable": func() error {
			return writeProc("/proc/self/oom_score_adj", "-1000")
		},
	} {
		kernelCalls[name] = f
	}
}

// probeLease: "PATH|rd" or "PATH|wr": takes a read (or write) lease on PATH
// and keeps it until the attacker exits. A host process that opens the
// file for writing (or, under a write lease, at all) then blocks until
// the lease is given up or the kernel breaks it (lease-break-time, 45 s by
// default).
func probeLease(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	flags, typ := unix.O_RDONLY, unix.F_RDLCK
	switch a[1] {
	case "rd":
	case "wr":
		flags, typ = unix.O_RDWR, unix.F_WRLCK
	default:
		return "", badArgs("lease type " + a[1])
	}
	fd, err := unix.Open(a[0], flags|unix.O_CLOEXEC, 0)
	if err != nil {
		return "open: " + err.Error(), err
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, typ); err != nil {
		unix.Close(fd)
		return "F_SETLEASE: " + err.Error(), err
	}
	held = append(held, fd)
	got, _ := unix.FcntlInt(uintptr(fd), unix.F_GETLEASE, 0)
	return fmt.Sprintf("lease %d held on %s", got, a[0]), nil
}

// probeFlock takes a shared flock on PATH (documented as allowed: the
// control beside the lease).
func probeFlock(p string) (string, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return "flocked", unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB)
}

var inodeFlags = map[string]int{"i": 0x10 /* FS_IMMUTABLE_FL */, "a": 0x20 /* FS_APPEND_FL */}

// probeChattr: "PATH|i" or "PATH|a": sets the immutable or append-only
// attribute (chattr +i, +a), which only CAP_LINUX_IMMUTABLE may set. A file
// made immutable in a writable root could not be changed or removed by its
// owner on the host, root included, until root clears it.
func probeChattr(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	bit, ok := inodeFlags[a[1]]
	if !ok {
		return "", badArgs("flag " + a[1])
	}
	fd, err := unix.Open(a[0], unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		return "getflags", err
	}
	v := int(flags) | bit
	return fmt.Sprintf("flags %#x", v), unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, v)
}

// probeGetFlags reads PATH's inode flags (lsattr): the control.
func probeGetFlags(p string) (string, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	return fmt.Sprintf("flags %#x", flags), err
}

// nsfs ioctls (linux/nsfs.h).
var nsIoctls = map[string]uint{
	"userns": 0xb701, // NS_GET_USERNS: the owning user namespace
	"parent": 0xb702, // NS_GET_PARENT: the parent pid or user namespace
	"type":   0xb703, // NS_GET_NSTYPE: the control, returns no descriptor
}

// probeNSIoctl: "NS|REQ": opens /proc/self/ns/NS and asks for a namespace
// beyond it (REQ userns or parent): a descriptor for the host's user or pid
// namespace. Allowed when a descriptor came back (its link is the detail).
func probeNSIoctl(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	req, ok := nsIoctls[a[1]]
	if !ok {
		return "", badArgs("ns ioctl " + a[1])
	}
	fd, err := unix.Open("/proc/self/ns/"+a[0], unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	self, _ := os.Readlink("/proc/self/ns/" + a[0])
	r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), 0)
	if e != 0 {
		return "", e
	}
	if a[1] == "type" {
		return fmt.Sprintf("type %#x of %s", r, self), nil
	}
	defer unix.Close(int(r))
	l, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(r)))
	return fmt.Sprintf("%s -> %s", self, l), nil
}

// pidfd namespace ioctls (linux/pidfd.h): _IO(0xFF, n).
var pidfdNS = map[string]uint{"cgroup": 1, "ipc": 2, "mnt": 3, "net": 4, "pid": 5, "time": 7, "user": 9, "uts": 10}

// probePidfdNS: "PID|NS": a descriptor for a namespace of process PID
// through its pidfd (PIDFD_GET_*_NAMESPACE), what setns(2) or /proc/PID/ns
// would give. "self" is the attacker's own process: the control.
func probePidfdNS(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	pid := os.Getpid()
	if a[0] != "self" {
		if pid, err = strconv.Atoi(a[0]); err != nil {
			return "", badArgs(a[0])
		}
	}
	nr, ok := pidfdNS[a[1]]
	if !ok {
		return "", badArgs("namespace " + a[1])
	}
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return "pidfd_open", err
	}
	defer unix.Close(pfd)
	r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(pfd), uintptr(0xff00|nr), 0)
	if e != 0 {
		return "", e
	}
	defer unix.Close(int(r))
	l, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(r)))
	return l, nil
}

func writeProc(p, v string) error {
	fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	_, err = unix.Write(fd, []byte(v))
	return err
}

// probeProcWrite: "PATH|VALUE": writes VALUE to a /proc (or other) file.
func probeProcWrite(arg string) (string, error) {
	p, v, ok := strings.Cut(arg, "|")
	if !ok {
		return "", badArgs(arg)
	}
	return "", writeProc(p, v)
}

// probeAuditSend sends an AUDIT_USER message to the kernel's audit socket:
// a line in the host's audit log, were it accepted.
func probeAuditSend(string) (string, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_AUDIT)
	if err != nil {
		return "socket", err
	}
	defer unix.Close(fd)
	msg := []byte("agentbox-attack audit injection\x00")
	b := make([]byte, unix.NLMSG_HDRLEN+len(msg))
	binary.LittleEndian.PutUint32(b[0:], uint32(len(b)))
	binary.LittleEndian.PutUint16(b[4:], 1005 /* AUDIT_USER */)
	binary.LittleEndian.PutUint16(b[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK)
	binary.LittleEndian.PutUint32(b[8:], 1)
	copy(b[unix.NLMSG_HDRLEN:], msg)
	if err := unix.Sendto(fd, b, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return "sendto", err
	}
	tv := unix.NsecToTimeval(int64(3 * time.Second))
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return "recv", err
	}
	if n >= unix.NLMSG_HDRLEN+4 && binary.LittleEndian.Uint16(buf[4:]) == unix.NLMSG_ERROR {
		if code := int32(binary.LittleEndian.Uint32(buf[unix.NLMSG_HDRLEN:])); code != 0 {
			return "", unix.Errno(-code)
		}
	}
	return "the kernel accepted the audit message", nil
}

// probeMemfdExec copies the attacker into a memfd and runs it from there
// (fexecve through /proc/self/fd): a program that exists on no mount.
// The child runs "child ids".
func probeMemfdExec(string) (string, error) {
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		return "", err
	}
	fd, err := unix.MemfdCreate("attacker", 0)
	if err != nil {
		return "memfd_create", err
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, self); err != nil {
		return "", err
	}
	st, out, err := runCaptured([]string{"/proc/self/fd/" + strconv.Itoa(fd), "child", "ids"})
	if err != nil {
		return out, err
	}
	return fmt.Sprintf("exit %d: %s", st.ExitCode(), out), nil
}

func init() { register(map[string]probeFunc{"mqhog": probeMqHog}) }

// mqAttr is struct mq_attr.
type mqAttr struct{ flags, maxmsg, msgsize, curmsgs, pad0, pad1, pad2, pad3 int64 }

// probeMqHog (blocked when not even one queue could be made) creates POSIX message queues in the sandbox's own IPC
// namespace (10 messages of 8 KiB each, the defaults) until the kernel
// refuses, keeps them open, and reports how many it got. Each costs about
// 80 KiB of the per-user RLIMIT_MSGQUEUE allowance, which the kernel also
// counts against the user who made the sandbox's user namespace.
func probeMqHog(string) (string, error) {
	attr := mqAttr{maxmsg: 10, msgsize: 8192}
	n := 0
	for ; n < 256; n++ {
		name, _ := unix.BytePtrFromString(fmt.Sprintf("agentbox-hog-%d", n))
		fd, _, e := unix.Syscall6(unix.SYS_MQ_OPEN, ptr(name), unix.O_CREAT|unix.O_RDWR|unix.O_CLOEXEC, 0o600, uintptr(unsafe.Pointer(&attr)), 0, 0)
		if e != 0 && n == 0 {
			return "", e
		}
		if e != 0 {
			return fmt.Sprintf("%d queues, then %v", n, e), nil
		}
		held = append(held, int(fd))
	}
	return fmt.Sprintf("%d queues", n), nil
}

func init() { register(map[string]probeFunc{"sigio": probeSigio}) }

// probeSigio: "PID|SIG" (PID "child": a child it starts): has the kernel send SIG to PID on its behalf, as
// the owner of a pipe in O_ASYNC mode (F_SETOWN, F_SETSIG), then writes
// to the pipe. Allowed when PID is gone afterwards. For the sandbox's
// init, whose Go runtime handles SIGTERM by exiting, that ends the
// sandbox (and this probe with it: the run is then incomplete).
func probeSigio(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	var pid int
	var err1 error
	if a[0] == "child" {
		// The control: a child of the attacker's own.
		child, err := os.StartProcess("/bin/sleep", []string{"sleep", "30"}, &os.ProcAttr{})
		if err != nil {
			return "", unwrap(err)
		}
		pid = child.Pid
		go func() { _, _ = child.Wait() }()
	} else {
		pid, err1 = strconv.Atoi(a[0])
	}
	sig, err2 := strconv.Atoi(a[1])
	if err1 != nil || err2 != nil {
		return "", badArgs(arg)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return "", err
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_SETOWN, pid); err != nil {
		return "F_SETOWN", err
	}
	if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_SETSIG, sig); err != nil {
		return "F_SETSIG", err
	}
	if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_SETFL, unix.O_ASYNC|unix.O_NONBLOCK); err != nil {
		return "O_ASYNC", err
	}
	if _, err := unix.Write(p[1], []byte("x")); err != nil {
		return "", err
	}
	time.Sleep(300 * time.Millisecond)
	if err := unix.Kill(pid, 0); err == unix.ESRCH {
		return fmt.Sprintf("pid %d is gone", pid), nil
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/status", pid)); err != nil {
		return fmt.Sprintf("pid %d is gone", pid), nil
	}
	return fmt.Sprintf("pid %d still runs", pid), errNotObtained
}
