//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"kill":      probeKill,
		"ptrace":    probePtrace,
		"pvread":    probePVRead,
		"pidfd":     probePidfd,
		"spawnkill": probeSpawnKill,
		"env":       func(string) (string, error) { return strings.Join(os.Environ(), "\n"), nil },
		"status":    probeStatus,
		"rlimit":    probeRlimit,
		"unshare":   probeUnshare,
		"clonens":   probeCloneNS,
		"clone3":    probeClone3,
		"setns":     probeSetns,
		"exec":      probeExec,
		"exit":      probeExit,
		"raise":     probeRaise,
		"x32":       func(string) (string, error) { return childProbe("x32") },
		"int80":     func(string) (string, error) { return childProbe("int80") },
		"forkbomb":  probeForkBomb,
		"hostname":  func(string) (string, error) { return os.Hostname() },
	})
}

// probeKill: "PID:SIG".
func probeKill(arg string) (string, error) {
	p, s, _ := strings.Cut(arg, ":")
	pid, err1 := strconv.Atoi(p)
	sig, err2 := strconv.Atoi(s)
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("bad kill argument %q", arg)
	}
	return "", unix.Kill(pid, unix.Signal(sig))
}

func probePtrace(arg string) (string, error) {
	pid, err := strconv.Atoi(arg)
	if err != nil {
		return "", err
	}
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_ATTACH, uintptr(pid), 0, 0, 0, 0)
	if e != 0 {
		return "", e
	}
	_, _, _ = unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_DETACH, uintptr(pid), 0, 0, 0, 0)
	return "attached", nil
}

// probePVRead reads 16 bytes of another process's memory at its stack's
// start (from /proc/PID/maps if readable, else a fixed low address).
func probePVRead(arg string) (string, error) {
	pid, err := strconv.Atoi(arg)
	if err != nil {
		return "", err
	}
	addr := uintptr(0x400000)
	if maps, err := os.ReadFile("/proc/" + arg + "/maps"); err == nil {
		for _, l := range strings.Split(string(maps), "\n") {
			if strings.Contains(l, "[stack]") {
				if v, err := strconv.ParseUint(strings.Split(l, "-")[0], 16, 64); err == nil {
					addr = uintptr(v)
				}
			}
		}
	}
	buf := make([]byte, 16)
	local := []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}}
	remote := []unix.RemoteIovec{{Base: addr, Len: len(buf)}}
	n, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("read %d bytes", n), nil
}

func probePidfd(arg string) (string, error) {
	pid, err := strconv.Atoi(arg)
	if err != nil {
		return "", err
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return "", unix.PidfdSendSignal(fd, 0, nil, 0)
}

// probeSpawnKill starts a sleep inside the sandbox and SIGKILLs it: the
// control for kill.
func probeSpawnKill(string) (string, error) {
	pid, err := syscall.ForkExec("/bin/sleep", []string{"sleep", "60"}, &syscall.ProcAttr{})
	if err != nil {
		return "", err
	}
	if err := unix.Kill(pid, unix.SIGKILL); err != nil {
		return "", err
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil {
		return "", err
	}
	return fmt.Sprintf("pid %d %v", pid, ws.Signal()), nil
}

// probeStatus reports the security-relevant lines of /proc/self/status.
func probeStatus(string) (string, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "", unwrap(err)
	}
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, k := range []string{"Uid:", "Gid:", "Groups:", "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:", "NoNewPrivs:", "Seccomp:"} {
			if strings.HasPrefix(l, k) {
				keep = append(keep, strings.Join(strings.Fields(l), " "))
			}
		}
	}
	return strings.Join(keep, "; "), nil
}

var rlimits = map[string]int{
	"core": unix.RLIMIT_CORE, "nproc": unix.RLIMIT_NPROC, "nofile": unix.RLIMIT_NOFILE,
	"data": unix.RLIMIT_DATA, "cpu": unix.RLIMIT_CPU,
}

// probeRlimit: "NAME": reports the limit, then tries to raise the hard
// limit (allowed means raising worked).
func probeRlimit(name string) (string, error) {
	res, ok := rlimits[name]
	if !ok {
		return "", fmt.Errorf("unknown rlimit %q", name)
	}
	var l unix.Rlimit
	if err := unix.Getrlimit(res, &l); err != nil {
		return "", err
	}
	detail := fmt.Sprintf("cur=%d max=%d", l.Cur, l.Max)
	if l.Max == unix.RLIM_INFINITY {
		return detail + " (unlimited)", nil
	}
	raised := unix.Rlimit{Cur: l.Max + 1, Max: l.Max + 1}
	return detail, unix.Setrlimit(res, &raised)
}

var nsFlags = map[string]int{
	"user": unix.CLONE_NEWUSER, "mnt": unix.CLONE_NEWNS, "net": unix.CLONE_NEWNET,
	"pid": unix.CLONE_NEWPID, "uts": unix.CLONE_NEWUTS, "ipc": unix.CLONE_NEWIPC,
	"cgroup": unix.CLONE_NEWCGROUP, "time": unix.CLONE_NEWTIME,
}

func nsFlag(name string) (int, error) {
	f, ok := nsFlags[name]
	if !ok {
		return 0, fmt.Errorf("unknown namespace %q", name)
	}
	return f, nil
}

// probeUnshare calls unshare(2) with one namespace flag. (The Go runtime is
// multi-threaded, so the kernel itself would answer EINVAL for user and
// mount namespaces; the suite runs unshare(1) for the single-threaded case.)
func probeUnshare(name string) (string, error) {
	f, err := nsFlag(name)
	if err != nil {
		return "", err
	}
	return "", unix.Unshare(f)
}

// probeCloneNS forks /bin/true into a new namespace (clone(2) flags).
func probeCloneNS(name string) (string, error) {
	f, err := nsFlag(name)
	if err != nil {
		return "", err
	}
	attr := &syscall.ProcAttr{Sys: &syscall.SysProcAttr{Cloneflags: uintptr(f)}}
	if f == unix.CLONE_NEWUSER {
		// Map the caller so the child's execve works in the new namespace.
		attr.Sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		attr.Sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	pid, err := syscall.ForkExec("/bin/true", []string{"true"}, attr)
	if err != nil {
		return "", unwrap(err)
	}
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, 0, nil)
	return fmt.Sprintf("child %d exited %d", pid, ws.ExitStatus()), nil
}

// probeClone3 calls clone3 with a struct too small to be valid: a filter
// that lets clone3 through answers EINVAL, one that refuses it ENOSYS or
// EPERM. No child is ever created.
func probeClone3(string) (string, error) {
	var args [8]uint64
	args[0] = unix.CLONE_NEWUSER
	_, _, e := unix.Syscall(unix.SYS_CLONE3, uintptr(unsafe.Pointer(&args[0])), 8, 0)
	if e == unix.EINVAL {
		return "clone3 reached the kernel", nil
	}
	return "", errnoErr(e)
}

func probeSetns(name string) (string, error) {
	f, err := nsFlag(name)
	if err != nil {
		return "", err
	}
	ns := map[int]string{unix.CLONE_NEWUSER: "user", unix.CLONE_NEWNS: "mnt", unix.CLONE_NEWNET: "net",
		unix.CLONE_NEWPID: "pid", unix.CLONE_NEWUTS: "uts", unix.CLONE_NEWIPC: "ipc", unix.CLONE_NEWCGROUP: "cgroup"}[f]
	fd, err := unix.Open("/proc/self/ns/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return "", unix.Setns(fd, f)
}

// probeExec runs PATH with arguments separated by "|" and reports its exit
// status and output.
func probeExec(arg string) (string, error) {
	argv := strings.Split(arg, "|")
	st, output, err := runCaptured(argv)
	if err != nil {
		return "", err
	}
	detail := fmt.Sprintf("exit %d: %s", st.ExitCode(), output)
	if !st.Success() {
		return detail, errNotObtained
	}
	return detail, nil
}

// runCaptured runs argv with stdout and stderr in one pipe, and returns how
// it ended and what it wrote (trimmed).
func runCaptured(argv []string) (*os.ProcessState, string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, "", err
	}
	p, err := os.StartProcess(argv[0], argv, &os.ProcAttr{Files: []*os.File{nil, w, w}})
	w.Close()
	if err != nil {
		r.Close()
		return nil, "", unwrap(err)
	}
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(r)
	r.Close()
	st, err := p.Wait()
	if err != nil {
		return nil, "", err
	}
	return st, strings.TrimSpace(buf.String()), nil
}

func probeExit(arg string) (string, error) {
	code, err := strconv.Atoi(arg)
	if err != nil {
		return "", err
	}
	out.Flush()
	os.Exit(code)
	return "", nil
}

// probeRaise sends signal N to the attacker itself and waits for it to
// take effect (the kernel may deliver a process-directed signal on another
// thread, after kill returns); the Go runtime re-raises terminating signals
// with the default action, so the process dies by N.
func probeRaise(arg string) (string, error) {
	sig, err := strconv.Atoi(arg)
	if err != nil {
		return "", err
	}
	out.Flush()
	if err := unix.Kill(os.Getpid(), unix.Signal(sig)); err != nil {
		return "", err
	}
	time.Sleep(10 * time.Second)
	return "still alive 10 s after the signal", errNotObtained
}

// childProbe runs "attacker child:NAME" and judges how it ended: killed by
// a signal (SIGSYS from seccomp) means blocked.
func childProbe(name string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		self = "/proc/self/exe"
	}
	st, detail, err := runCaptured([]string{self, "child", name})
	if err != nil {
		return "", err
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return detail, &signalError{sig: unix.Signal(ws.Signal())}
	}
	if st.ExitCode() != 0 {
		return detail, fmt.Errorf("child: %s", detail)
	}
	return detail, nil
}

// runChild performs one dangerous system call and exits 0 if it returned
// success.
func runChild(name string) int {
	if mb, ok := strings.CutPrefix(name, "hold:"); ok {
		return holdMemory(mb)
	}
	if path, ok := strings.CutPrefix(name, "read:"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Printf("read %d bytes\n", len(b))
		return 0
	}
	switch name {
	case "x32":
		if x32Bit == 0 {
			fmt.Println("no x32 on this architecture")
			return 1
		}
		r, _, e := unix.RawSyscall(unix.SYS_GETPID|x32Bit, 0, 0, 0)
		fmt.Printf("x32 getpid returned %d errno %v\n", r, e)
		if e != 0 {
			return 1
		}
	case "int80":
		if !haveInt80 {
			fmt.Println("no int 0x80 on this architecture")
			return 1
		}
		r := int(int80(i386Getpid))
		fmt.Printf("int 0x80 getpid returned %d (own pid %d)\n", r, os.Getpid())
		if r < 0 {
			return 1
		}
	case "ids":
		fmt.Println(identity())
	case "privileged":
		// Success means the exec gave the program more than its caller had:
		// another user or group, or any capability.
		id := identity()
		fmt.Println(id)
		if !strings.Contains(id, "gained=no") {
			return 0
		}
		return 1
	default:
		fmt.Println("unknown child probe", name)
		return 2
	}
	return 0
}

// probeForkBomb forks sleeps until fork fails (or 5000 of them run) and
// reports how many it got. The sleeps are left to the sandbox's teardown.
func probeForkBomb(string) (string, error) {
	n := 0
	for ; n < 5000; n++ {
		_, err := syscall.ForkExec("/bin/sleep", []string{"sleep", "120"}, &syscall.ProcAttr{})
		if err != nil {
			return fmt.Sprintf("forked %d", n), unwrap(err)
		}
	}
	return fmt.Sprintf("forked %d", n), nil
}

// identity describes the process's real and effective IDs and capability
// sets, and whether the effective ones differ from what its caller had.
func identity() string {
	uid, euid, gid, egid := os.Getuid(), os.Geteuid(), os.Getgid(), os.Getegid()
	caps := map[string]string{}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && (k == "CapEff" || k == "CapPrm" || k == "CapAmb") {
				caps[k] = strings.TrimSpace(v)
			}
		}
	}
	gained := "no"
	if euid != uid || egid != gid || len(caps) != 3 {
		gained = "yes"
	}
	for _, v := range caps {
		if strings.Trim(v, "0") != "" {
			gained = "yes"
		}
	}
	return fmt.Sprintf("uid=%d euid=%d gid=%d egid=%d CapPrm=%s CapEff=%s CapAmb=%s gained=%s",
		uid, euid, gid, egid, caps["CapPrm"], caps["CapEff"], caps["CapAmb"], gained)
}
