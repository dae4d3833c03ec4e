//go:build linux

package linux

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The I/O priority's class field, and its real-time class.
const (
	ioprioClassShift = 13
	ioprioClassRT    = 1
)

// normalPriority takes back, on the calling thread (the one that forks the
// program) and for the init's process, the priorities raised above those a
// process starts with: a negative nice value, a real-time scheduling
// policy, the real-time I/O class, an oom_score_adj below 0. A caller's —
// or the forker's, kept from when it started — would otherwise reach every
// sandboxed program, which could then take the host's CPU and disk, or
// never be the OOM killer's choice (red-team round 55). RLIMIT_NICE and
// RLIMIT_RTPRIO, set to 0 before, keep the program from raising them
// again. Each change lowers a priority, which needs no privilege; a lower
// priority the caller chose (nice 10, SCHED_IDLE) is kept.
func normalPriority() error {
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return fmt.Errorf("getpriority: %w", err)
	}
	if nice := 20 - prio; nice < 0 { // the raw syscall returns 20 - nice
		if err := unix.Setpriority(unix.PRIO_PROCESS, 0, 0); err != nil {
			return fmt.Errorf("setpriority: %w", err)
		}
	}
	attr, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return fmt.Errorf("sched_getattr: %w", err)
	}
	switch attr.Policy {
	case unix.SCHED_NORMAL, unix.SCHED_BATCH, unix.SCHED_IDLE:
	default: // SCHED_FIFO, SCHED_RR, SCHED_DEADLINE
		if err := unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}, 0); err != nil {
			return fmt.Errorf("sched_setattr: %w", err)
		}
	}
	io, _, errno := unix.RawSyscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, 0, 0)
	if errno != 0 {
		return fmt.Errorf("ioprio_get: %w", errno)
	}
	if io>>ioprioClassShift == ioprioClassRT {
		if _, _, errno := unix.RawSyscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, 0, 0); errno != 0 {
			return fmt.Errorf("ioprio_set: %w", errno)
		}
	}
	return raiseOOMScoreAdj()
}

// raiseOOMScoreAdj makes the process's oom_score_adj at least 0.
func raiseOOMScoreAdj() error {
	const file = "/proc/self/oom_score_adj"
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("oom_score_adj: %w", err)
	}
	adj, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || adj >= 0 {
		return nil
	}
	if err := os.WriteFile(file, []byte("0"), 0); err != nil {
		return fmt.Errorf("oom_score_adj: %w", err)
	}
	return nil
}
