//go:build linux

package main

import (
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"sys":       probeSys,
		"mount":     probeMount,
		"umount":    func(p string) (string, error) { return "", unix.Unmount(p, unix.MNT_DETACH) },
		"chroot":    func(p string) (string, error) { return "", unix.Chroot(p) },
		"pivotroot": probePivotRoot,
		"opentree":  probeOpenTree,
		"fsopen":    probeFsopen,
		"setattr":   probeMountSetattr,
		"tiocsti":   probeTIOCSTI,
		"ttywrite":  probeTTYWrite,
	})
}

// ptr returns the address of v as a system call argument.
func ptr[T any](v *T) uintptr { return uintptr(unsafe.Pointer(v)) }

func cstr(s string) uintptr {
	p, err := unix.BytePtrFromString(s)
	if err != nil {
		panic(err)
	}
	return uintptr(unsafe.Pointer(p))
}

// rawCall makes a system call and closes the descriptor it may return.
func rawCall(nr uintptr, a ...uintptr) error {
	var args [6]uintptr
	copy(args[:], a)
	r, _, e := unix.Syscall6(nr, args[0], args[1], args[2], args[3], args[4], args[5])
	if e != 0 {
		return e
	}
	if int(r) > 2 && returnsFD[nr] {
		unix.Close(int(r))
	}
	return nil
}

var returnsFD = map[uintptr]bool{
	unix.SYS_BPF: true, unix.SYS_PERF_EVENT_OPEN: true, unix.SYS_USERFAULTFD: true,
	unix.SYS_IO_URING_SETUP: true, unix.SYS_FANOTIFY_INIT: true, unix.SYS_MEMFD_CREATE: true,
	unix.SYS_EVENTFD2: true, unix.SYS_EPOLL_CREATE1: true, unix.SYS_INOTIFY_INIT1: true,
	unix.SYS_TIMERFD_CREATE: true,
}

// kernelCalls are system calls a workload has no use for. Each is made so
// that, were it allowed, it would succeed (or at least reach the kernel)
// for an unprivileged process, and never harm the machine.
var kernelCalls = map[string]func() error{
	"bpf": func() error {
		// BPF_MAP_CREATE of a one-entry array.
		attr := [5]uint32{2 /* BPF_MAP_TYPE_ARRAY */, 4, 4, 1, 0}
		return rawCall(unix.SYS_BPF, 0 /* BPF_MAP_CREATE */, ptr(&attr), unsafe.Sizeof(attr))
	},
	"perf_event_open": func() error {
		attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_SOFTWARE, Config: unix.PERF_COUNT_SW_CPU_CLOCK,
			Bits: unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv}
		attr.Size = uint32(unsafe.Sizeof(attr))
		return rawCall(unix.SYS_PERF_EVENT_OPEN, ptr(&attr), 0, ^uintptr(0), ^uintptr(0), 0)
	},
	"userfaultfd": func() error {
		return rawCall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC|1 /* UFFD_USER_MODE_ONLY */)
	},
	"io_uring_setup": func() error {
		var params [30]uint32 // struct io_uring_params, 120 bytes
		return rawCall(unix.SYS_IO_URING_SETUP, 4, ptr(&params))
	},
	"io_uring_enter":    func() error { return rawCall(unix.SYS_IO_URING_ENTER, ^uintptr(0), 0, 0, 0, 0, 0) },
	"io_uring_register": func() error { return rawCall(unix.SYS_IO_URING_REGISTER, ^uintptr(0), 0, 0, 0) },
	"keyctl": func() error {
		ring := int32(unix.KEY_SPEC_SESSION_KEYRING)
		return rawCall(unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, uintptr(ring), 1)
	},
	"add_key": func() error {
		ring := int32(unix.KEY_SPEC_PROCESS_KEYRING)
		return rawCall(unix.SYS_ADD_KEY, cstr("user"), cstr("agentbox-attack"), cstr("x"), 1,
			uintptr(ring))
	},
	"request_key": func() error {
		return rawCall(unix.SYS_REQUEST_KEY, cstr("user"), cstr("agentbox-attack"), 0, 0)
	},
	"kexec_load":      func() error { return rawCall(unix.SYS_KEXEC_LOAD, 0, 0, 0, 0) },
	"kexec_file_load": func() error { return rawCall(unix.SYS_KEXEC_FILE_LOAD, ^uintptr(0), ^uintptr(0), 1, cstr(""), 0) },
	"init_module":     func() error { return rawCall(unix.SYS_INIT_MODULE, 0, 0, cstr("")) },
	"finit_module": func() error {
		fd, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return rawCall(unix.SYS_FINIT_MODULE, uintptr(fd), cstr(""), 0)
	},
	"delete_module": func() error { return rawCall(unix.SYS_DELETE_MODULE, cstr("agentbox_attack_none"), unix.O_NONBLOCK) },
	"syslog":        func() error { return rawCall(unix.SYS_SYSLOG, 10 /* SYSLOG_ACTION_SIZE_BUFFER */, 0, 0) },
	"personality":   func() error { return rawCall(unix.SYS_PERSONALITY, 0x0400000 /* READ_IMPLIES_EXEC */) },
	"fanotify_init": func() error {
		return rawCall(unix.SYS_FANOTIFY_INIT, unix.FAN_CLASS_NOTIF|unix.FAN_REPORT_FID, unix.O_RDONLY)
	},
	"name_to_handle_at": func() error {
		_, _, err := unix.NameToHandleAt(unix.AT_FDCWD, "/", 0)
		return err
	},
	"reboot":  func() error { return rawCall(unix.SYS_REBOOT, 0, 0, 0, 0) /* bad magic: EINVAL if reached */ },
	"acct":    func() error { return rawCall(unix.SYS_ACCT, 0) },
	"swapoff": func() error { return rawCall(unix.SYS_SWAPOFF, cstr("/agentbox-attack-none")) },
	"clock_settime": func() error {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_REALTIME, &ts); err != nil {
			return err
		}
		return rawCall(unix.SYS_CLOCK_SETTIME, unix.CLOCK_REALTIME, ptr(&ts))
	},
	"settimeofday": func() error {
		var tv unix.Timeval
		if err := unix.Gettimeofday(&tv); err != nil {
			return err
		}
		return rawCall(unix.SYS_SETTIMEOFDAY, ptr(&tv), 0)
	},
	"sethostname":   func() error { return unix.Sethostname([]byte("agentbox-pwned")) },
	"setdomainname": func() error { return unix.Setdomainname([]byte("agentbox-pwned")) },
	"kcmp":          func() error { return rawCall(unix.SYS_KCMP, uintptr(os.Getpid()), uintptr(os.Getpid()), 0, 0, 0) },
	"process_vm_readv_self": func() error {
		buf := make([]byte, 8)
		src := []byte("12345678")
		local := []unix.Iovec{{Base: &buf[0], Len: 8}}
		remote := []unix.RemoteIovec{{Base: uintptr(unsafe.Pointer(&src[0])), Len: 8}}
		_, err := unix.ProcessVMReadv(os.Getpid(), local, remote, 0)
		return err
	},
	"ptrace_traceme": func() error { return rawCall(unix.SYS_PTRACE, unix.PTRACE_TRACEME) },
	"pidfd_getfd": func() error {
		fd, err := unix.PidfdOpen(os.Getpid(), 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return rawCall(unix.SYS_PIDFD_GETFD, uintptr(fd), 0, 0)
	},
	// Benign calls: the controls.
	"getpid":       func() error { return rawCall(unix.SYS_GETPID) },
	"memfd":        func() error { return rawCall(unix.SYS_MEMFD_CREATE, cstr("ok"), unix.MFD_CLOEXEC) },
	"eventfd":      func() error { return rawCall(unix.SYS_EVENTFD2, 0, unix.EFD_CLOEXEC) },
	"epoll":        func() error { return rawCall(unix.SYS_EPOLL_CREATE1, unix.EPOLL_CLOEXEC) },
	"inotify":      func() error { return rawCall(unix.SYS_INOTIFY_INIT1, unix.IN_CLOEXEC) },
	"timerfd":      func() error { return rawCall(unix.SYS_TIMERFD_CREATE, unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC) },
	"personality0": func() error { return rawCall(unix.SYS_PERSONALITY, 0xffffffff) },
}

func init() {
	for name, f := range archKernelCalls() {
		kernelCalls[name] = f
	}
}

func probeSys(name string) (string, error) {
	f, ok := kernelCalls[name]
	if !ok {
		return "", fmt.Errorf("unknown system call probe %q", name)
	}
	return "", f()
}

// probeMount: "remount-ro-root" style operations through mount(2).
func probeMount(arg string) (string, error) {
	switch {
	case arg == "remount-rw-root":
		return "", unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND, "")
	case arg == "remount-rw-root-fs":
		return "", unix.Mount("", "/", "", unix.MS_REMOUNT, "rw")
	case strings.HasPrefix(arg, "tmpfs|"):
		return "", unix.Mount("tmpfs", strings.TrimPrefix(arg, "tmpfs|"), "tmpfs", 0, "")
	case strings.HasPrefix(arg, "bind|"):
		a, err := splitArgs(strings.TrimPrefix(arg, "bind|"), 2)
		if err != nil {
			return "", err
		}
		return "", unix.Mount(a[0], a[1], "", unix.MS_BIND, "")
	}
	return "", fmt.Errorf("unknown mount probe %q", arg)
}

func probePivotRoot(p string) (string, error) { return "", unix.PivotRoot(p, p) }

func probeOpenTree(p string) (string, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, p, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err == nil {
		unix.Close(fd)
	}
	return "", err
}

func probeFsopen(string) (string, error) {
	fd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err == nil {
		unix.Close(fd)
	}
	return "", err
}

// probeMountSetattr tries to clear the read-only attribute of the mount at
// PATH.
func probeMountSetattr(p string) (string, error) {
	return "", unix.MountSetattr(unix.AT_FDCWD, p, 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY})
}

// The string TIOCSTI tries to push into the terminal's input.
const ttyInjection = "AGENTBOX_TIOCSTI_INJECTED\n"

// probeTIOCSTI: "FD" or "FD|hi". It first makes the terminal on FD its
// controlling terminal (the kernel then lets an unprivileged process use
// TIOCSTI on it), then pushes ttyInjection into its input one character at
// a time. "hi" sets bits above 32 in the request number, which the kernel
// ignores.
func probeTIOCSTI(arg string) (string, error) {
	fdStr, variant, _ := strings.Cut(arg, "|")
	var fd int
	if _, err := fmt.Sscanf(fdStr, "%d", &fd); err != nil {
		return "", err
	}
	_, _, cttyErr := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSCTTY, 0)
	req := uint64(unix.TIOCSTI)
	if variant == "hi" {
		req |= 1 << 32
	}
	for i := 0; i < len(ttyInjection); i++ {
		c := ttyInjection[i]
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(unsafe.Pointer(&c)))
		if e != 0 {
			return fmt.Sprintf("TIOCSCTTY: %v; TIOCSTI failed at byte %d", cttyErr, i), e
		}
	}
	return fmt.Sprintf("TIOCSCTTY: %v; injected %d bytes", cttyErr, len(ttyInjection)), nil
}

// probeTTYWrite writes a line to FD: the control that the terminal is
// really connected.
func probeTTYWrite(arg string) (string, error) {
	var fd int
	if _, err := fmt.Sscanf(arg, "%d", &fd); err != nil {
		return "", err
	}
	_, err := unix.Write(fd, []byte("AGENTBOX_TTY_CONTROL\n"))
	return "", err
}
