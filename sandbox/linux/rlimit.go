//go:build linux

package linux

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// setRlimits applies the limits to the init (they are process-wide) before it
// forks the program, which inherits them. Core dumps are always off: a core
// file could carry secrets out of a process's memory. So are real-time
// scheduling and raised priorities, which an unprivileged user may have
// (limits.conf gives the audio group rtprio 95 on many desktops): a
// SCHED_FIFO busy loop would take 95% of a CPU from everything else.
//
// Pending signals are counted per user, across user namespaces: those
// queued inside count against the limit of the user who started the
// sandbox too (the creator of its user namespace), and a sandbox that took
// all of them would leave the user's other programs unable to queue one
// while it runs (glibc's set*id across threads, thread cancellation and
// POSIX timers need them). The sandbox gets a share of the caller's
// allowance, as with inotify instances (ucounts.go).
//
// The memory limit is not among them: the init itself (a copy of the host
// program, which may link cgo) can need more than a small limit allows, so
// it holds it only for the fork (inheritDataLimit), and limitMemory makes
// it the program's for good.
//
// shared says the sandbox has no user namespace of its own (the reduced
// tier): RLIMIT_NPROC then counts every process of the user on the host,
// not the sandbox's alone, so l.Processes is added to what the user runs
// now (see userTasks).
func setRlimits(l limitsSpec, shared bool) error {
	if shared && l.Processes > 0 {
		var err error
		if l.Processes, err = sharedProcessLimit(l.Processes); err != nil {
			return fmt.Errorf("nproc: %w", err)
		}
	}
	set := []struct {
		res    int
		name   string
		v      uint64
		always bool // also when v is 0
	}{
		{unix.RLIMIT_CORE, "core", 0, true},
		{unix.RLIMIT_RTPRIO, "rtprio", 0, true},
		{unix.RLIMIT_NICE, "nice", 0, true},
		{unix.RLIMIT_NPROC, "nproc", l.Processes, false},
		{unix.RLIMIT_NOFILE, "nofile", l.FileDescriptors, false},
		{unix.RLIMIT_CPU, "cpu", l.CPUSeconds, false},
		// Where a monitor sums the tree's memory (see uncountedMemory), it
		// leaves file pages out, as the kernel may drop them: none may be
		// locked in.
		{unix.RLIMIT_MEMLOCK, "memlock", 0, l.uncounted()},
	}
	for _, s := range set {
		if s.v == 0 && !s.always {
			continue
		}
		if err := unix.Setrlimit(s.res, &unix.Rlimit{Cur: s.v, Max: s.v}); err != nil {
			return fmt.Errorf("%s=%d: %w", s.name, s.v, err)
		}
	}
	for _, s := range rlimitShares {
		var cur unix.Rlimit
		if err := unix.Getrlimit(s.res, &cur); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if cur.Cur == unix.RLIM_INFINITY {
			continue // the caller's own allowance is unbounded: nothing to exhaust
		}
		v := max(1, cur.Cur/s.den)
		if err := unix.Setrlimit(s.res, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("%s=%d: %w", s.name, v, err)
		}
	}
	return nil
}

// rlimitShares are the limits of per-user counts the sandbox shares with
// its caller: it gets 1/den of the caller's own limit.
var rlimitShares = []struct {
	res  int
	name string
	den  uint64
}{
	{unix.RLIMIT_SIGPENDING, "sigpending", 4},
}

// inheritDataLimit lowers the init's own soft RLIMIT_DATA for the fork of
// the program, which inherits it at clone: a child the program forks
// before limitMemory reaches it is bounded too (without it, such a child
// kept no limit at all). The hard limit stays the init's, so the returned
// restore can raise the soft one back, and the program's children may not
// raise theirs to it in the meantime: dataLimitRules refuse any change to
// RLIMIT_DATA.
//
// The init holds more data than a small limit allows (a Go runtime and its
// threads: over 100 MiB of VmData), and a mapping refused while the limit
// is lowered is fatal to it (syscall.ForkExec's own allocations grow the
// heap now and then: measured, a few runs in a hundred under load). So the
// init's limit is never lowered below what it holds plus dataHeadroom: the
// program starts under bytes or, where bytes is smaller than that, under
// that larger bound until limitMemory lowers it; a child it forked in the
// meantime keeps that bound.
func inheritDataLimit(bytes uint64) (restore func() error, err error) {
	if bytes == 0 {
		return nil, nil
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	held, ok := statusVmData(status)
	if !ok {
		return nil, fmt.Errorf("data: no VmData in /proc/self/status")
	}
	window := max(bytes, held+dataHeadroom)
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &old); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if old.Cur <= window {
		return nil, nil // already as low: nothing to lower or restore
	}
	lim := unix.Rlimit{Cur: window, Max: old.Max}
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &lim); err != nil {
		return nil, fmt.Errorf("data=%d: %w", window, err)
	}
	return func() error { return unix.Setrlimit(unix.RLIMIT_DATA, &old) }, nil
}

// dataHeadroom is the room the init keeps to map memory while its
// RLIMIT_DATA is lowered for the fork: a heap chunk (4 MiB), runtime
// metadata, and a cgo thread's stack (8 MiB), with margin.
const dataHeadroom = 32 << 20

// statusVmData reads VmData (the memory RLIMIT_DATA counts) from a
// /proc/PID/status, in bytes.
func statusVmData(b []byte) (uint64, bool) {
	for line := range strings.SplitSeq(string(b), "\n") {
		val, found := strings.CutPrefix(line, "VmData:")
		if !found {
			continue
		}
		fields := strings.Fields(val)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseUint(fields[0], 10, 64)
		return kb << 10, err == nil
	}
	return 0, false
}

// limitMemory bounds the program's memory with RLIMIT_DATA (soft and hard),
// from the outside, once it runs: its hard limit, inherited from the init,
// is not yet the program's (see inheritDataLimit). A cgroup, where there is
// one, bounds the whole tree from the start.
//
// RLIMIT_DATA rather than RLIMIT_AS: runtimes such as V8, the JVM and Go
// reserve far more address space than they use, and an address-space limit
// breaks them long before it stops a memory bomb.
func limitMemory(pid int, bytes uint64) error {
	if bytes == 0 {
		return nil
	}
	lim := unix.Rlimit{Cur: bytes, Max: bytes}
	if err := unix.Prlimit(pid, unix.RLIMIT_DATA, &lim, nil); err != nil {
		return fmt.Errorf("data=%d: %w", bytes, err)
	}
	return nil
}

// sharedProcessLimit is the RLIMIT_NPROC that lets a sandbox sharing its
// user's count start n processes (threads included) beyond those the user
// runs now, within the caller's own hard limit. A user's other programs
// exiting while it runs leave it room for more; the limit still bounds a
// fork bomb to n more than the user had.
func sharedProcessLimit(n uint64) (uint64, error) {
	running, err := userTasks("/proc", uint32(unix.Getuid()))
	if err != nil {
		return 0, err
	}
	var hard unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &hard); err != nil {
		return 0, err
	}
	return min(running+n, hard.Max), nil
}

// userTasks counts the tasks (threads) whose real uid is uid, as the
// kernel's RLIMIT_NPROC does, from the processes under proc. A process
// that exits while it reads is skipped.
func userTasks(proc string, uid uint32) (uint64, error) {
	d, err := os.Open(proc)
	if err != nil {
		return 0, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0, err
	}
	var n uint64
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile(proc + "/" + name + "/status")
		if err != nil {
			continue
		}
		if real, threads, ok := statusUIDThreads(b); ok && real == uid {
			n += threads
		}
	}
	return n, nil
}

// statusUIDThreads reads the real uid and the thread count from a
// /proc/PID/status.
func statusUIDThreads(b []byte) (uid uint32, threads uint64, ok bool) {
	var haveUID, haveThreads bool
	for line := range strings.SplitSeq(string(b), "\n") {
		key, val, found := strings.Cut(line, ":")
		if !found {
			continue
		}
		fields := strings.Fields(val)
		if len(fields) == 0 {
			continue
		}
		switch key {
		case "Uid":
			v, err := strconv.ParseUint(fields[0], 10, 32)
			uid, haveUID = uint32(v), err == nil
		case "Threads":
			v, err := strconv.ParseUint(fields[0], 10, 64)
			threads, haveThreads = v, err == nil
		}
	}
	return uid, threads, haveUID && haveThreads
}

// disableHugePages turns transparent huge pages off for the init's memory
// (PR_SET_THP_DISABLE), which the program inherits across fork and execve,
// where a monitor sums the tree's memory (l.uncounted()). A page held by a
// reference the sum does not see (a pipe's, a socket buffer's, an I/O's)
// then holds 4 KiB, the bound the README gives for pipes, not the 2 MiB of
// the huge page it belongs to, whatever kernel path takes the reference
// (vmsplice is refused besides: pinningCalls). Private memory works as
// before, in small pages; the program may not turn them back on
// (thpDisableRule).
func disableHugePages(l limitsSpec) error {
	if !l.uncounted() {
		return nil
	}
	return unix.Prctl(unix.PR_SET_THP_DISABLE, 1, 0, 0, 0)
}
