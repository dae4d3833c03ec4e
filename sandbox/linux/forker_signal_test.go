//go:build linux

package linux

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// runningForker is r's forker, which forkedWarmInit saw running.
func runningForker(t *testing.T, r *Runtime) *forker {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fork.f == nil {
		t.Fatal("no forker")
	}
	return r.fork.f
}

// procState is pid's state letter from /proc ("" once it is gone).
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 {
		return f[0]
	}
	return ""
}

// TestForkerIgnoresTerminalSignals: the forker has a process group of its
// own, and a terminal's signals sent to it (^C, ^\, ^Z, a hang-up) neither
// kill nor stop it: a sandbox it cloned runs on, and the next warm init
// still comes from it. The programs it runs do not inherit those signals,
// nor the ones their init keeps away from itself (SIGPIPE, SIGTTIN,
// SIGTTOU), as ignored.
func TestForkerIgnoresTerminalSignals(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	_, forkerPid := forkedWarmInit(t, r)
	f := runningForker(t, r)
	t.Cleanup(func() { _ = f.cmd.Process.Kill() })
	pgid, err := syscall.Getpgid(forkerPid)
	if err != nil {
		t.Fatal(err)
	}
	if pgid == syscall.Getpgrp() {
		// Not sent: it would reach this process and go test.
		t.Fatalf("the forker %d shares this process's group %d", forkerPid, pgid)
	}

	var out bytes.Buffer
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	proc, err := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkFiltered},
		&sandbox.Program{Path: "/bin/cat", Args: []string{"cat", "/proc/self/status"}, Stdout: wr})
	wr.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = out.ReadFrom(rd)
	rd.Close()
	proc.Wait()
	proc.Close()
	for _, line := range strings.Split(out.String(), "\n") {
		if hex, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			ign, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGHUP,
				syscall.SIGPIPE, syscall.SIGTTIN, syscall.SIGTTOU} {
				if ign&(1<<(s-1)) != 0 {
					t.Errorf("a program in a forked init ignores signal %d (%v)", s, s)
				}
			}
		}
	}

	waitWarm(t, &r.pool, kindNetns)
	proc, err = r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkFiltered},
		&sandbox.Program{Path: "/bin/sleep", Args: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := parentOf(t, proc.Pid()); got != forkerPid {
		t.Fatalf("the sandbox's init has parent %d, want the forker %d", got, forkerPid)
	}
	done := make(chan sandbox.ExitStatus, 1)
	go func() { st, _ := proc.Wait(); done <- st }()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGHUP} {
		if err := syscall.Kill(-pgid, sig); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case st := <-done:
		t.Fatalf("the sandbox ended on the signals to the forker's group: %+v", st)
	case <-time.After(300 * time.Millisecond):
	}
	if st := procState(forkerPid); st == "" || st == "Z" || st == "T" {
		t.Fatalf("the forker is in state %q after the signals", st)
	}
	proc.Kill()
	<-done
	proc.Close() // released: the next warm init starts
	waitWarm(t, &r.pool, kindNetns)
	r.pool.mu.Lock()
	w := r.pool.ready[kindNetns]
	r.pool.mu.Unlock()
	if _, ok := w.proc.(*forkedProc); !ok || parentOf(t, w.proc.pid()) != forkerPid {
		t.Errorf("the warm init after the signals does not come from the forker %d", forkerPid)
	}
	if st := runSandbox(t, r, "/bin/sh", "-c", "exit 5"); st.Code != 5 {
		t.Errorf("after the signals: %+v, want exit 5", st)
	}
}

// stoppedForker returns a Runtime whose forker is stopped (SIGSTOP) while
// it is asked for a warm init.
func stoppedForker(t *testing.T) (*Runtime, *forker) {
	t.Helper()
	r := &Runtime{}
	t.Cleanup(func() { r.Close() }) // after the kill below: cleanups run last first
	_, forkerPid := forkedWarmInit(t, r)
	f := runningForker(t, r)
	t.Cleanup(func() { _ = f.cmd.Process.Kill() })
	if err := syscall.Kill(forkerPid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	runSandbox(t, r, "/bin/true") // its release asks the forker for the next one
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		f.mu.Lock()
		asked := f.pending != nil
		f.mu.Unlock()
		if asked {
			return r, f
		}
		if time.Now().After(deadline) {
			t.Fatal("no request to the forker in flight")
		}
	}
}

// TestForkerStopped: a stopped forker holds nothing up for long. Start,
// waiting for the warm-up in flight, falls back once the forker's answer
// is overdue, and the forker is killed and dropped; Close does not wait for
// a request in flight.
func TestForkerStopped(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r, f := stoppedForker(t)
	start := time.Now()
	started := make(chan error, 1)
	go func() {
		proc, err := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkFiltered},
			&sandbox.Program{Path: "/bin/true", Args: []string{"true"}})
		if err == nil {
			proc.Wait()
			proc.Close()
		}
		started <- err
	}()
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(forkTimeout + 5*time.Second):
		t.Fatalf("Start still blocked %v after the forker stopped", time.Since(start))
	}
	if d := time.Since(start); d > forkTimeout+2*time.Second {
		t.Errorf("Start took %v with the forker stopped", d)
	}
	if !processGone(f.cmd.Process.Pid, 5*time.Second) {
		t.Error("the stopped forker was not killed")
	}
	r.mu.Lock()
	off := r.fork.off
	r.mu.Unlock()
	if !off {
		t.Error("the Runtime still counts on a stopped forker")
	}

	r2, _ := stoppedForker(t)
	closed := make(chan struct{})
	start = time.Now()
	go func() { r2.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(forkTimeout / 2):
		t.Fatalf("Close blocked %v by a request to a stopped forker", time.Since(start))
	}
}

// TestNoFallbackAfterClose: a warm-up whose request to the forker fails
// after the Runtime closed does not start the init from this process
// instead. Each init start makes a cgroup, which the count shows.
func TestNoFallbackAfterClose(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r, _ := stoppedForker(t)
	if cgroups.version == 0 {
		t.Skip("no cgroups: nothing counts the inits started")
	}
	made := cgroupSeq.Load()
	r.Close()
	for deadline := time.Now().Add(forkTimeout + 5*time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, pending := r.pool.state(kindNetns); !pending {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the warm-up did not end")
		}
	}
	if n := cgroupSeq.Load() - made; n != 0 {
		t.Errorf("%d init(s) started after Close", n)
	}
}

// TestClosedRuntimeEndsStoppedForker: a forker that is stopped (SIGSTOP)
// when its Runtime closes, with no request in flight and no init of its
// own left, does not stay behind for ever: no request will come to find it
// overdue, no init's end to report, and a stopped process never reads the
// end of its socket.
func TestClosedRuntimeEndsStoppedForker(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	initPid, forkerPid := forkedWarmInit(t, r)
	f := runningForker(t, r)
	t.Cleanup(func() { _ = f.cmd.Process.Kill() }) // not to leave it behind if this fails
	// The forker's warm init goes, and no other one comes.
	r.pool.mu.Lock()
	w := r.pool.ready[kindNetns]
	delete(r.pool.ready, kindNetns)
	r.pool.mu.Unlock()
	w.discard()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		f.mu.Lock()
		idle := len(f.procs) == 0
		f.mu.Unlock()
		if idle {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the forker did not report its discarded init's end")
		}
	}
	if err := syscall.Kill(forkerPid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); procState(forkerPid) != "T"; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the forker is in state %q, not stopped", procState(forkerPid))
		}
	}
	f.mu.Lock()
	asked := f.pending != nil
	f.mu.Unlock()
	if asked {
		t.Fatal("a request is in flight")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{initPid, forkerPid} {
		if !processGone(pid, 10*time.Second) {
			t.Errorf("process %d (state %q) outlived the closed Runtime", pid, procState(pid))
		}
	}
}

// TestKilledSandboxWaitsNotForStoppedForker: the Wait of a sandbox killed
// (its init gone without a report of the program's status) while its
// forker is stopped (SIGSTOP) returns: it does not wait for ever for the
// forker's report of the init's end. (The forker is killed, as when a
// request to it is overdue.)
func TestKilledSandboxWaitsNotForStoppedForker(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	initPid, forkerPid := forkedWarmInit(t, r)
	f := runningForker(t, r)
	t.Cleanup(func() { _ = f.cmd.Process.Kill() }) // not to leave it behind if this fails
	proc, err := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkFiltered},
		&sandbox.Program{Path: "/bin/sleep", Args: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	if proc.Pid() != initPid {
		t.Fatalf("the sandbox runs in init %d, not the forked one %d", proc.Pid(), initPid)
	}
	if err := syscall.Kill(forkerPid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); procState(forkerPid) != "T"; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the forker is in state %q, not stopped", procState(forkerPid))
		}
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan sandbox.ExitStatus, 1)
	go func() { st, _ := proc.Wait(); waited <- st }()
	select {
	case st := <-waited:
		if st.Signal != syscall.SIGKILL {
			t.Errorf("the killed sandbox: %+v, want SIGKILL", st)
		}
	case <-time.After(forkTimeout + 10*time.Second):
		t.Fatal("Wait of a killed sandbox still blocked by its stopped forker")
	}
}
