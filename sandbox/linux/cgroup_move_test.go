//go:build linux

package linux

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
	"golang.org/x/sys/unix"
)

// TestForkerMovesIntoCgroupV1: on cgroup v1, where an init cannot be
// cloned into its cgroup, the forker moves a warm init it cloned into it
// before it answers (and before it could reap it): no move is left to this
// process, and the init sits in the cgroup's memory and pids directories.
func TestForkerMovesIntoCgroupV1(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	initPid, _ := forkedWarmInit(t, r)
	r.pool.mu.Lock()
	w := r.pool.ready[kindNetns]
	r.pool.mu.Unlock()
	if w.cg == nil && w.cgMoved == nil {
		t.Skip("no cgroup for the init")
	}
	if w.cgMoved != nil {
		t.Fatal("the move of a forked init into its cgroup was left to this process")
	}
	if w.cg.version != 1 {
		t.Skipf("cgroup v%d: the init is cloned into its cgroup", w.cg.version)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", initPid))
	if err != nil {
		t.Fatal(err)
	}
	for _, ctrl := range []string{"memory", "pids"} {
		if got := v1Path(b, ctrl); filepath.Base(got) != filepath.Base(w.cg.dirs[0]) {
			t.Errorf("the forked init's %s cgroup is %q, want its sandbox's %s", ctrl, got, filepath.Base(w.cg.dirs[0]))
		}
	}
}

// TestInitNotReapedWhileMoved: an init this process started is not reaped
// while its move into a cgroup is in flight, so that the pid written is
// still its own. The cgroup.procs here is a FIFO that takes the pid only
// when the test reads it.
func TestInitNotReapedWhileMoved(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "cgroup.procs")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctl, child, err := socketpair()
	if err != nil {
		t.Fatal(err)
	}
	child.Close()
	w := newWarmInit(cmdProc{cmd: cmd}, ctl, initCgroup{cg: &sandboxCgroup{version: 1, dirs: []string{dir}}})
	defer ctl.Close()
	if err := w.proc.signal(unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { _, _ = w.proc.wait(); close(reaped) }()
	read := func() string {
		f, err := os.Open(fifo) // lets the move's write through
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		return string(b)
	}
	select {
	case <-reaped:
		read()
		t.Fatal("the init was reaped while its move into a cgroup was in flight")
	case <-time.After(200 * time.Millisecond):
	}
	if st := procState(cmd.Process.Pid); st != "Z" {
		t.Errorf("the killed init is in state %q, want a zombie nobody reaped", st)
	}
	if got := read(); strings.TrimSpace(got) != strconv.Itoa(cmd.Process.Pid) {
		t.Errorf("the move wrote %q, want the init's pid %d", got, cmd.Process.Pid)
	}
	select {
	case <-reaped:
	case <-time.After(5 * time.Second):
		t.Fatal("the init was not reaped once moved")
	}
	if err := <-w.cgMoved; err != nil {
		t.Errorf("the move: %v", err)
	}
}

// TestForkedInitNotMovedByPid: a warm init the forker cloned without a
// cgroup (making one failed then) is not moved into the sandbox's cgroup
// by its pid from this process: the forker reaps it, and once reaped its
// pid may be another process's, which would be moved into the sandbox's
// cgroup and killed with it. Here the init was reaped, and its pid, as
// the forker reported it, is a host process's (victim) by the time its
// sandbox starts, before the forker's report of its end came in.
func TestForkedInitNotMovedByPid(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	probe, err := newSandboxCgroup()
	if err != nil {
		t.Skipf("no cgroups: %v", err)
	}
	probe.closeAsync()
	victim := exec.Command("/bin/sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	cgBefore, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", victim.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	// The init that was: a process that exited and was reaped.
	gone := exec.Command("/bin/true")
	if err := gone.Start(); err != nil {
		t.Fatal(err)
	}
	pidfd, err := unix.PidfdOpen(gone.Process.Pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = gone.Wait()
	p := &forkedProc{id: victim.Process.Pid, pidfd: pidfd, exited: make(chan struct{})}
	t.Cleanup(func() { p.exit(syscall.WaitStatus(syscall.SIGKILL), nil) }) // the forker's late report
	ctl, child, err := socketpair()
	if err != nil {
		t.Fatal(err)
	}
	child.Close() // the init's end went with it

	r := &Runtime{ColdStart: true} // no warm-up, and no forker, beside this one
	defer r.Close()
	r.init()
	r.pool.ready = map[initKind]*warmInit{kindNetns: {proc: p, ctl: ctl}}
	proc, startErr := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkFiltered,
		Limits: sandbox.Limits{MemoryBytes: 256 << 20, Processes: 64}},
		&sandbox.Program{Path: "/bin/true", Args: []string{"true"}})
	if startErr == nil {
		proc.Wait()
		proc.Close()
	}
	cleanups.Wait() // the sandbox's cgroup removed, what is in it killed
	if st := procState(victim.Process.Pid); st == "" || st == "Z" {
		t.Fatalf("the host process whose pid the gone init had was killed (state %q)", st)
	}
	cgAfter, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", victim.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if string(cgAfter) != string(cgBefore) {
		t.Errorf("the host process was moved from\n%s\nto\n%s", cgBefore, cgAfter)
	}
	if startErr != nil {
		t.Errorf("Start: %v, want the sandbox in an init of its own", startErr)
	}
}
