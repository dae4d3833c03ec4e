//go:build linux

package linux

import (
	"fmt"

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
// limitMemory applies it to the program alone, right after the fork.
func setRlimits(l limitsSpec) error {
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
		{unix.RLIMIT_MEMLOCK, "memlock", 0, l.CountedOnly && l.MemoryBytes > 0},
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

// limitMemory bounds the program's memory with RLIMIT_DATA (soft and hard),
// from the outside: the program cannot have allocated much between its
// exec and this call, and a cgroup, where there is one, bounds the whole
// tree from the start.
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
