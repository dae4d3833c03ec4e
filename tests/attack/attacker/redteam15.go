//go:build linux

package main

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Probes of red-team session 15: calls that change another process's
// scheduling and resource attributes. They check only that the caller and
// the target share a uid (or a capability), not that the target is in the
// caller's Landlock domain, so a pid namespace is what keeps them from the
// host's processes. "self" as PID targets the prober.
func init() {
	register(map[string]probeFunc{
		"prlimitpid":  probePrlimitPid,
		"nicepid":     probeNicePid,
		"schedidle":   probeSchedIdlePid,
		"iopriopid":   probeIoprioPid,
		"affinitypid": probeAffinityPid,
		"cpulimitpid": probeCPULimitPid,
		"mqsteal":     probeMqSteal,
		"shmatid":     probeShmatID,
		"listmnt":     probeListmount,
		"listns":      probeListns,
		"aiohog":      probeAIOHog,
		"shmwriteid":  probeShmWriteID,
		"ptysteal":    probePtySteal,
	})
}

func targetPid(arg string) (int, error) {
	if arg == "self" {
		return 0, nil
	}
	pid, err := strconv.Atoi(arg)
	if err != nil {
		return 0, badArgs("want a pid or self, got " + strconv.Quote(arg))
	}
	return pid, nil
}

// probePrlimitPid lowers PID's open-file limit to 7 (soft and hard, so
// that an unprivileged owner cannot raise it back).
func probePrlimitPid(arg string) (string, error) {
	pid, err := targetPid(arg)
	if err != nil {
		return "", err
	}
	lim := unix.Rlimit{Cur: 7, Max: 7}
	if pid == 0 {
		// The prober needs its descriptors: lower only the soft limit.
		var old unix.Rlimit
		if err := unix.Prlimit(0, unix.RLIMIT_NOFILE, nil, &old); err != nil {
			return "", err
		}
		lim = unix.Rlimit{Cur: old.Cur, Max: old.Max}
	}
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
		return "", err
	}
	return fmt.Sprintf("RLIMIT_NOFILE of %s set to %d", arg, lim.Max), nil
}

// probeNicePid sets PID's nice value to 19, which an unprivileged owner
// cannot undo beyond RLIMIT_NICE.
func probeNicePid(arg string) (string, error) {
	pid, err := targetPid(arg)
	if err != nil {
		return "", err
	}
	if err := unix.Setpriority(unix.PRIO_PROCESS, pid, 19); err != nil {
		return "", err
	}
	return "niced to 19", nil
}

// probeSchedIdlePid moves PID to SCHED_IDLE: it then runs only when the
// CPU has nothing else to do.
func probeSchedIdlePid(arg string) (string, error) {
	pid, err := targetPid(arg)
	if err != nil {
		return "", err
	}
	var attr [56]byte
	binary.LittleEndian.PutUint32(attr[0:], 56)
	binary.LittleEndian.PutUint32(attr[4:], 5 /* SCHED_IDLE */)
	_, _, e := unix.Syscall(unix.SYS_SCHED_SETATTR, uintptr(pid), uintptr(unsafe.Pointer(&attr[0])), 0)
	if e != 0 {
		return "", e
	}
	return "SCHED_IDLE", nil
}

// probeIoprioPid puts PID in the idle I/O class.
func probeIoprioPid(arg string) (string, error) {
	pid, err := targetPid(arg)
	if err != nil {
		return "", err
	}
	_, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, 1 /* IOPRIO_WHO_PROCESS */, uintptr(pid), 3<<13 /* IOPRIO_CLASS_IDLE */)
	if e != 0 {
		return "", e
	}
	return "IOPRIO_CLASS_IDLE", nil
}

// probeAffinityPid pins PID to CPU 0.
func probeAffinityPid(arg string) (string, error) {
	pid, err := targetPid(arg)
	if err != nil {
		return "", err
	}
	var set unix.CPUSet
	set.Set(0)
	if err := unix.SchedSetaffinity(pid, &set); err != nil {
		return "", err
	}
	return "pinned to CPU 0", nil
}

// probeCPULimitPid caps PID's CPU time at one second, soft and hard: past
// it the kernel sends SIGXCPU, then SIGKILL, which Landlock's signal
// scoping does not see (the kernel sends it, not the prober).
func probeCPULimitPid(arg string) (string, error) {
	pid, err := targetPid(arg)
	if err != nil {
		return "", err
	}
	lim := unix.Rlimit{Cur: 1, Max: 1}
	if pid == 0 {
		lim = unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
		var old unix.Rlimit
		if err := unix.Prlimit(0, unix.RLIMIT_CPU, nil, &old); err != nil {
			return "", err
		}
		lim = old
	}
	if err := unix.Prlimit(pid, unix.RLIMIT_CPU, &lim, nil); err != nil {
		return "", err
	}
	return fmt.Sprintf("RLIMIT_CPU of %s set to %d s", arg, lim.Max), nil
}

// probeMqSteal takes the first message off the POSIX message queue NAME
// ("/name") and returns it: the message is gone for its real reader.
func probeMqSteal(name string) (string, error) {
	if len(name) < 2 || name[0] != '/' {
		return "", badArgs("want /NAME, got " + strconv.Quote(name))
	}
	p, err := unix.BytePtrFromString(name[1:])
	if err != nil {
		return "", err
	}
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0, 0, 0, 0)
	if errno != 0 {
		return "", errno
	}
	defer unix.Close(int(fd))
	buf := make([]byte, 8192)
	n, _, errno := unix.Syscall6(unix.SYS_MQ_TIMEDRECEIVE, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
	if errno != 0 {
		return "opened " + name, errno
	}
	return "received " + strconv.Quote(string(buf[:n])), nil
}

// probeShmatID attaches the System V segment ID (as /proc/sysvipc/shm
// lists it) read-only without shmget, and returns its first bytes.
func probeShmatID(arg string) (string, error) {
	id, err := strconv.Atoi(arg)
	if err != nil {
		return "", badArgs("want a segment id, got " + strconv.Quote(arg))
	}
	b, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
	if err != nil {
		return "", err
	}
	defer unix.SysvShmDetach(b)
	return strconv.Quote(strings.TrimRight(string(b[:min(len(b), 64)]), "\x00")), nil
}

// probeListmount lists the mounts of the mount namespace whose id is ARG
// (0: the prober's own) with listmount(2) and returns how many there are.
func probeListmount(arg string) (string, error) {
	nsid, err := strconv.ParseUint(arg, 10, 64)
	if err != nil {
		return "", badArgs("want a mount namespace id, got " + strconv.Quote(arg))
	}
	// struct mnt_id_req: size, spare, mnt_id, param, mnt_ns_id.
	var req [4]uint64
	req[0] = 32
	req[1] = ^uint64(0) // LSMT_ROOT
	req[3] = nsid
	ids := make([]uint64, 4096)
	n, _, e := unix.Syscall6(unix.SYS_LISTMOUNT, uintptr(unsafe.Pointer(&req[0])), uintptr(unsafe.Pointer(&ids[0])), uintptr(len(ids)), 0, 0, 0)
	if e != 0 {
		return "", e
	}
	return fmt.Sprintf("%d mounts", n), nil
}

// probeListns lists the namespaces listns(2) shows the prober and returns
// how many there are.
func probeListns(string) (string, error) {
	// struct ns_id_req: size, spare, ns_id, ns_type, spare2, user_ns_id.
	var req [4]uint64
	req[0] = 32
	ids := make([]uint64, 4096)
	n, _, e := unix.Syscall6(unix.SYS_LISTNS, uintptr(unsafe.Pointer(&req[0])), uintptr(unsafe.Pointer(&ids[0])), uintptr(len(ids)), 0, 0, 0)
	if e != 0 {
		return "", e
	}
	return fmt.Sprintf("%d namespaces: %v", n, ids[:min(int(n), 16)]), nil
}

// probeAIOHog takes native AIO contexts (io_setup) until the kernel
// refuses even a one-event one, holds them for ARG seconds, and returns
// how many events it reserved. fs.aio-max-nr bounds the events of every
// context on the machine together.
func probeAIOHog(arg string) (string, error) {
	secs, err := strconv.Atoi(arg)
	if err != nil {
		return "", badArgs("want seconds, got " + strconv.Quote(arg))
	}
	var ctxs []uint64
	defer func() {
		for _, c := range ctxs {
			unix.Syscall(unix.SYS_IO_DESTROY, uintptr(c), 0, 0)
		}
	}()
	reserved := 0
	for nr := 1 << 15; nr >= 1 && len(ctxs) < 4096; {
		var c uint64
		_, _, e := unix.Syscall(unix.SYS_IO_SETUP, uintptr(nr), uintptr(unsafe.Pointer(&c)), 0)
		if e == unix.EAGAIN {
			nr /= 2
			continue
		}
		if e != 0 {
			return fmt.Sprintf("%d contexts, %d events", len(ctxs), reserved), e
		}
		ctxs = append(ctxs, c)
		reserved += nr
	}
	if len(ctxs) == 0 {
		return "", unix.EAGAIN
	}
	time.Sleep(time.Duration(secs) * time.Second)
	return fmt.Sprintf("%d contexts, %d events", len(ctxs), reserved), nil
}

// probeShmWriteID attaches the System V segment ID read-write without
// shmget and writes a marker at its start.
func probeShmWriteID(arg string) (string, error) {
	id, err := strconv.Atoi(arg)
	if err != nil {
		return "", badArgs("want a segment id, got " + strconv.Quote(arg))
	}
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		return "", err
	}
	defer unix.SysvShmDetach(b)
	copy(b, "AGENTBOX-RT15-WROTE")
	return "wrote the marker", nil
}

// probePtySteal opens the terminal PATH (another terminal's /dev/pts/N)
// for reading, as a program on it would, and takes what is waiting in its
// input: what the user typed there.
func probePtySteal(path string) (string, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	buf := make([]byte, 256)
	for range 40 {
		n, err := unix.Read(fd, buf)
		if n > 0 {
			return "read " + strconv.Quote(string(buf[:n])), nil
		}
		if err != nil && err != unix.EAGAIN {
			return "opened", err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "opened, nothing to read", errNotObtained
}
