//go:build linux

package attack_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRedteam15ReducedTierHostProcessAttributes attacks a process of the
// same user on the host from the reduced tier, which has no pid namespace:
// the calls that change another process's resource limits, nice value,
// scheduling policy, I/O class and CPU affinity check only that the uids
// match (Landlock's scoping covers signals and ptrace, not these), so a
// command could cap the user's shell or editor at 7 open files for good,
// or leave it to run only when the CPU is idle. The controls do the same
// to the prober itself. The full sandbox (own pid namespace) must refuse
// the same.
//
// Fixed: the reduced tier lets these calls name only the caller itself
// (pid 0; setpriority and ioprio_set only PRIO_PROCESS/IOPRIO_WHO_PROCESS
// of 0): seccomp's hostProcessRules.
func TestRedteam15ReducedTierHostProcessAttributes(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier); run as an unprivileged user")
	}
	t.Parallel()
	pid, _ := startVictim(t)
	before := victimState(t, pid)
	// A second victim that computes: capped at a second of CPU, the
	// kernel kills it.
	busy := exec.Command("/bin/sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	busyDone := make(chan error, 1)
	go func() { busyDone <- busy.Wait() }()
	t.Cleanup(func() { _ = busy.Process.Kill(); <-busyDone })
	p := func(probe string) string { return fmt.Sprintf("%s:%d", probe, pid) }
	ps := []probe{
		control("own_prlimit", "prlimitpid:self", ""),
		control("own_nice", "nicepid:self", ""),
		control("own_ioprio", "iopriopid:self", ""),
		control("own_affinity", "affinitypid:self", ""),
		control("own_schedidle", "schedidle:self", ""),
		control("own_cpu_limit", "cpulimitpid:self", ""),
		attack("host_prlimit", p("prlimitpid")),
		attack("host_nice", p("nicepid")),
		attack("host_ioprio", p("iopriopid")),
		attack("host_affinity", p("affinitypid")),
		attack("host_schedidle", p("schedidle")),
		attack("host_cpu_limit", fmt.Sprintf("cpulimitpid:%d", busy.Process.Pid)),
	}
	refused, res := runInChild(t, "no-capabilities", false, newDir(t, 0o755), ps)
	if res == nil {
		t.Fatalf("agentbox refused: %s", refused)
	}
	o := parseOutput(res.Stdout)
	if !o.started || !o.done {
		t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	t.Logf("layers %q\nattacker output:\n%s", res.Layers, res.Stdout)
	checkProbes(t, o, ps)
	if after := victimState(t, pid); after != before {
		t.Errorf("ESCAPE: the host process %d was changed from the sandbox:\nbefore: %s\nafter:  %s", pid, before, after)
	}
	select {
	case err := <-busyDone:
		busyDone <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Errorf("ESCAPE: the host process %d was killed by %v after the sandbox capped its CPU time", busy.Process.Pid, ws.Signal())
				return
			}
		}
		t.Errorf("the busy host process ended: %v", err)
	case <-time.After(3 * time.Second):
	}
}

// victimState is what the attacks change in process pid: its open-file
// limit, nice value, policy and allowed CPUs.
func victimState(t *testing.T, pid int) string {
	t.Helper()
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		t.Fatal(err)
	}
	var files string
	for _, l := range strings.Split(string(limits), "\n") {
		if strings.HasPrefix(l, "Max open files") {
			files = strings.Join(strings.Fields(l), " ")
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	// Fields after the command: nice is the 19th of stat (index 16 here),
	// policy the 41st (index 38).
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var cpus string
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "Cpus_allowed_list:") {
			cpus = strings.TrimSpace(strings.TrimPrefix(l, "Cpus_allowed_list:"))
		}
	}
	return fmt.Sprintf("%s; nice %s; policy %s; cpus %s", files, f[16], f[38], cpus)
}
