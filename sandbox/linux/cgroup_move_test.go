//go:build linux

package linux

import (
	"context"
	"errors"
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

// TestCgroupV1ThreadJoins: on cgroup v1 no init is moved into its
// sandbox's cgroup (a move by pid waits for an RCU grace period under the
// cgroups' global lock). The thread that forks the program joins through
// the tasks files instead, so the program and what it starts sit in the
// sandbox's memory and pids cgroups, and the init, an inotify instance's
// slow teardown and all, does not: the cgroup is gone as soon as the
// program's tree is. Cold inits and the forker's warm ones alike.
func TestCgroupV1ThreadJoins(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	if cgroups.find(); cgroups.version != 1 {
		t.Skipf("cgroup v%d: inits are cloned into their cgroup", cgroups.version)
	}
	for _, tc := range []struct {
		name string
		warm func(t *testing.T, r *Runtime)
	}{
		{"cold", func(*testing.T, *Runtime) {}},
		{"forked", func(t *testing.T, r *Runtime) { forkedWarmInit(t, r) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Runtime{ColdStart: tc.name == "cold"}
			defer r.Close()
			tc.warm(t, r)
			proc, err := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkFiltered,
				Limits: sandbox.Limits{MemoryBytes: 256 << 20, Processes: 64}},
				&sandbox.Program{Path: "/bin/sh", Args: []string{"sh", "-c", "sleep 3600 & exec sleep 3600"}})
			if err != nil {
				t.Fatal(err)
			}
			h := proc.(*handle)
			if h.cgroup == nil {
				proc.Kill()
				proc.Close()
				t.Skip("no cgroup for the sandbox")
			}
			if !h.joinTasks {
				t.Error("the init was moved into its cgroup v1, not the program's thread")
			}
			program := onlyChild(t, h.proc.pid())           // sleep, exec'd by sh
			sleeps := []int{program, onlyChild(t, program)} // and the one sh started first
			want := filepath.Base(h.cgroup.dirs[0])
			inSandbox := func(pid int) map[string]bool {
				b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
				if err != nil {
					t.Fatal(err)
				}
				return map[string]bool{"memory": filepath.Base(v1Path(b, "memory")) == want, "pids": filepath.Base(v1Path(b, "pids")) == want}
			}
			for _, pid := range sleeps {
				for ctrl, in := range inSandbox(pid) {
					if !in {
						t.Errorf("the program's process %d is not in its sandbox's %s cgroup %s", pid, ctrl, want)
					}
				}
			}
			for ctrl, in := range inSandbox(h.proc.pid()) {
				if in {
					t.Errorf("the init is in its sandbox's %s cgroup", ctrl)
				}
			}
			_ = proc.Kill()
			_, _ = proc.Wait()
			proc.Close()
			cleanups.Wait()
			for _, d := range h.cgroup.dirs {
				if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the sandbox's cgroup %s is left: %v", d, err)
				}
			}
		})
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
	// cgroup v2 without CLONE_INTO_CGROUP: the one move left (v1's
	// program joins by its thread instead).
	w := newWarmInit(cmdProc{cmd: cmd}, ctl, initCgroup{cg: &sandboxCgroup{version: 2, dirs: []string{dir}}})
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

// TestCgroupJoinFailureRefuses: a program whose thread could not join its
// cgroup v1 does not run: the sandbox fails at the init's "cgroup" stage.
// The cgroup is a stand-in whose tasks file refuses writes (/dev/full);
// the control's takes them (a plain file), and its program runs.
func TestCgroupJoinFailureRefuses(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	for _, tc := range []struct {
		name  string
		tasks func(path string) error
		fails bool
	}{
		{"control", func(p string) error { return os.WriteFile(p, nil, 0o600) }, false},
		{"attack", func(p string) error { return os.Symlink("/dev/full", p) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := tc.tasks(filepath.Join(dir, "tasks")); err != nil {
				t.Fatal(err)
			}
			r := &Runtime{ColdStart: true}
			defer r.Close()
			r.init()
			w, err := startInit(r, kindNetns)
			if err != nil {
				t.Fatal(err)
			}
			if !w.joinTasks {
				w.discard()
				t.Skip("no cgroup v1 here for the program's thread to join")
			}
			w.cg.closeAsync() // empty: the init is not in it
			w.cg = &sandboxCgroup{version: 1, dirs: []string{dir, dir}, memDir: dir}
			r.pool.mu.Lock()
			r.pool.ready = map[initKind]*warmInit{kindNetns: w}
			r.pool.mu.Unlock()
			proc, err := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkBlocked,
				Limits: sandbox.Limits{MemoryBytes: 256 << 20, Processes: 64}},
				&sandbox.Program{Path: "/bin/true", Args: []string{"true"}})
			if !tc.fails {
				if err != nil {
					t.Fatal(err)
				}
				if st, err := proc.Wait(); err != nil || st.Code != 0 {
					t.Errorf("the program: %+v, %v; want it run", st, err)
				}
				proc.Close()
				return
			}
			if err == nil {
				proc.Kill()
				proc.Close()
				t.Fatal("the program started though its thread could not join its cgroup")
			}
			if !strings.Contains(err.Error(), "cgroup") {
				t.Errorf("Start: %v; want the cgroup stage named", err)
			}
		})
	}
}
