//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox"
)

// rt55bSetAllThreads sets the nice value and, if rr, SCHED_RR priority 1
// and the real-time I/O class (else SCHED_OTHER, no I/O class) on every
// thread of this process: a process's nice
// value, policy and I/O priority are per thread on Linux, and a new
// thread inherits its creator's.
func rt55bSetAllThreads(t *testing.T, nice int, rr bool) {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		_ = unix.Setpriority(unix.PRIO_PROCESS, tid, nice)
		rt55bSetSched(tid, rr)
		// ioprio_set(IOPRIO_WHO_PROCESS, tid, RT class 1 prio 4, or none)
		prio := uintptr(0)
		if rr {
			prio = 1<<13 | 4
		}
		_, _, _ = unix.Syscall(unix.SYS_IOPRIO_SET, 1, uintptr(tid), prio)
	}
}

// rt55bSetSched sets SCHED_RR priority 1 (rr) or SCHED_OTHER on tid.
func rt55bSetSched(tid int, rr bool) {
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: 0}
	if rr {
		attr.Policy, attr.Priority = 2, 1 // SCHED_RR
	}
	_ = unix.SchedSetAttr(tid, &attr, 0)
}

// TestRedteam55InheritedPriority: README ("Limits") promises "no
// real-time or raised priorities, whatever the caller's limits allow".
// The init only sets RLIMIT_RTPRIO and RLIMIT_NICE to 0
// (sandbox/linux/rlimit.go setRlimits), which stop the program from
// raising its priority, and seccomp confines sched_set*/setpriority/
// ioprio_set to the program's own processes (seccomp.go); nothing resets
// the nice value, scheduling policy and I/O priority the program inherits
// (nor, by the same path, the oom_score_adj: a caller made OOM-immune
// makes its commands so; not tested here, where root lacks
// CAP_SYS_RESOURCE). The init inherits them from the thread that clones
// it: the forker, which took them from the caller when it started and
// keeps them for the Manager's life (forker.go startForker,
// forker_main.go), or the caller itself. A caller that runs at a raised
// priority (an agent supervisor started with Nice=-5, or a real-time
// policy, as latency-sensitive services are) gives every sandboxed
// command that priority: a command that spins then takes the CPU (and,
// with the real-time I/O class, the disk) from the host's own processes
// (SCHED_RR: ahead of every ordinary process on its core, up to the
// kernel's 95% real-time throttle), the denial of service the limits
// exist to stop. Over time: a caller that raises its priority only while
// its Manager starts (the forker starts with the first command) and then
// goes back to nice 0 and SCHED_OTHER still has every later command run
// at the raised priority.
//
// Severity: medium (a denial of service of the host by a sandboxed
// command). Fix: the init (before it forks the program) sets the nice
// value to max(0, its own) with setpriority, the policy to SCHED_OTHER
// (or SCHED_BATCH/IDLE as they were) with sched_setattr, the I/O class
// to best-effort (or idle) and oom_score_adj to at least 0.
//
// Control: a Manager made while the caller runs at nice 0, SCHED_OTHER
// gives the program nice 0, SCHED_OTHER, no I/O class (and `nice`, `chrt`
// and `ionice` report what the test set in the caller itself: the premise
// that they read it).
//
// Found by red-team round 55. Fixed: sandbox/linux/priority.go
// (normalPriority, on the thread that forks the program).
func TestRedteam55InheritedPriority(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("raising a priority needs root (CAP_SYS_NICE)")
	}
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	probe := `nice; chrt -p $$ | head -1; ionice -p $$`
	run := func(m *agentbox.Manager) string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", probe})
		if err != nil {
			t.Fatalf("ExecArgs: %v", err)
		}
		return strings.TrimSpace(res.Stdout + res.Stderr)
	}
	// Control: an ordinary caller.
	m := newManager(t, cfg)
	ctl := run(m)
	t.Logf("control: %q", ctl)
	if !strings.HasPrefix(ctl, "0\n") || !strings.Contains(ctl, "SCHED_OTHER") || strings.Contains(ctl, "realtime") {
		t.Fatalf("control: a sandbox of an ordinary caller reports %q", ctl)
	}
	m.Close()

	// The caller at nice -5, SCHED_RR 1 (restored at the end).
	rt55bSetAllThreads(t, -5, true)
	defer rt55bSetAllThreads(t, 0, false)
	self, _ := os.ReadFile("/proc/thread-self/stat")
	t.Logf("caller thread stat: %s", strings.Fields(string(self))[18])
	out, err := rt55bHostProbe(probe)
	if err != nil || !strings.HasPrefix(out, "-5\n") || !strings.Contains(out, "SCHED_RR") || !strings.Contains(out, "realtime") {
		t.Fatalf("premise: the caller's own child does not report nice -5, SCHED_RR, realtime I/O: %q %v", out, err)
	}
	m2 := newManager(t, cfg)
	var outs []string
	for i := 0; i < 3; i++ { // the first sandbox is cloned by the caller, the next by the forker
		outs = append(outs, run(m2))
		time.Sleep(200 * time.Millisecond)
	}
	m2.Close()
	rt55bSetAllThreads(t, 0, false)
	t.Logf("sandboxes of a caller at nice -5, SCHED_RR: %q", outs)
	raised := func(o string) bool {
		return strings.HasPrefix(o, "-") || strings.Contains(o, "SCHED_RR") || strings.Contains(o, "SCHED_FIFO") ||
			strings.Contains(o, "realtime")
	}
	for i, o := range outs {
		if raised(o) {
			t.Errorf("ESCAPE: sandboxed command %d runs at the caller's raised priority (%q): the init resets neither the nice value nor the real-time policy it inherits", i, strings.ReplaceAll(o, "\n", "; "))
		}
	}

	// Over time: the caller raises its priority only while its Manager
	// starts (its forker with it), then goes back to nice 0, SCHED_OTHER.
	rt55bSetAllThreads(t, -5, true)
	m3 := newManager(t, cfg)
	first := run(m3)
	time.Sleep(500 * time.Millisecond) // the forker starts after the first command
	rt55bSetAllThreads(t, 0, false)
	if out, _ := rt55bHostProbe(probe); !strings.HasPrefix(out, "0\n") || !strings.Contains(out, "SCHED_OTHER") {
		t.Fatalf("premise: the caller's own child after the reset reports %q", out)
	}
	var later []string
	for i := 0; i < 3; i++ {
		later = append(later, run(m3))
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("first command %q; commands after the caller went back to nice 0, SCHED_OTHER: %q", first, later)
	for i, o := range later {
		if raised(o) {
			t.Errorf("ESCAPE: command %d, run after the caller went back to nice 0 and SCHED_OTHER, still runs at %q: the forker keeps the priority the caller had when it started, for the Manager's life", i, strings.ReplaceAll(o, "\n", "; "))
			break
		}
	}
}

// rt55bHostProbe runs script unsandboxed, as the caller's own child.
func rt55bHostProbe(script string) (string, error) {
	out, err := exec.Command("/bin/sh", "-c", script).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
