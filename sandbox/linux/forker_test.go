//go:build linux

package linux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// parentOf is pid's parent pid, read from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state ppid ...; comm may hold spaces.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// processGone waits up to d for pid to be gone (or a zombie nobody reaps).
func processGone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// forkedWarmInit runs one sandbox in r so that the next warm init comes
// from the forker, and returns that init's pid and the forker's.
func forkedWarmInit(t *testing.T, r *Runtime) (initPid, forkerPid int) {
	t.Helper()
	r.Warm(true)
	waitWarm(t, &r.pool, kindNetns)
	deadline := time.Now().Add(10 * time.Second)
	for {
		runSandbox(t, r, "/bin/true")
		waitWarm(t, &r.pool, kindNetns)
		r.mu.Lock()
		f := r.fork.f
		r.mu.Unlock()
		r.pool.mu.Lock()
		w := r.pool.ready[kindNetns]
		r.pool.mu.Unlock()
		if _, ok := w.proc.(*forkedProc); ok && f != nil {
			return w.proc.pid(), f.cmd.Process.Pid
		}
		if time.Now().After(deadline) {
			t.Fatal("no warm init came from the forker")
		}
	}
}

// runSandbox runs path in r and returns its status.
func runSandbox(t *testing.T, r *Runtime, path string, args ...string) sandbox.ExitStatus {
	t.Helper()
	proc, err := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkFiltered},
		&sandbox.Program{Path: path, Args: append([]string{path}, args...)})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	st, err := proc.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestWarmInitsComeFromForker: after the first, a Runtime's warm inits are
// cloned by its forker, not by this process; they run programs, report
// exit statuses and take signals like any init; closing the Runtime ends
// the forker.
func TestWarmInitsComeFromForker(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	initPid, forkerPid := forkedWarmInit(t, r)
	if got := parentOf(t, initPid); got != forkerPid || forkerPid == os.Getpid() {
		t.Fatalf("warm init %d has parent %d, want the forker %d (this process is %d)", initPid, got, forkerPid, os.Getpid())
	}
	if st := runSandbox(t, r, "/bin/sh", "-c", "exit 3"); st.Code != 3 {
		t.Errorf("exit status %+v, want 3", st)
	}
	waitWarm(t, &r.pool, kindNetns)
	proc, err := r.Start(context.Background(), &sandbox.Spec{Network: sandbox.NetworkFiltered},
		&sandbox.Program{Path: "/bin/sleep", Args: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	if st, err := proc.Wait(); err != nil || st.Signal != syscall.SIGKILL {
		t.Errorf("killed sandbox: %+v, %v; want SIGKILL", st, err)
	}
	proc.Close()
	waitWarm(t, &r.pool, kindNetns)
	r.pool.mu.Lock()
	lastInit := r.pool.ready[kindNetns].proc.pid()
	r.pool.mu.Unlock()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{lastInit, forkerPid} {
		if !processGone(pid, 5*time.Second) {
			t.Errorf("process %d outlived the closed Runtime", pid)
		}
	}
}

// TestForkerDeath: when the forker dies, the inits it cloned die with it,
// and the Runtime goes on cloning its own.
func TestForkerDeath(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	initPid, forkerPid := forkedWarmInit(t, r)
	if err := syscall.Kill(forkerPid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !processGone(initPid, 5*time.Second) {
		t.Fatalf("warm init %d outlived its forker", initPid)
	}
	r.pool.mu.Lock()
	w := r.pool.ready[kindNetns]
	r.pool.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); w.alive(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the Runtime did not notice its forker's death")
		}
	}
	// The dead warm init is not handed out, and the next ones come from
	// this process.
	for range 2 {
		if st := runSandbox(t, r, "/bin/sh", "-c", "exit 4"); st.Code != 4 {
			t.Fatalf("after the forker died: %+v, want exit 4", st)
		}
	}
	r.mu.Lock()
	off := r.fork.off
	r.mu.Unlock()
	if !off {
		t.Error("the Runtime still counts on a dead forker")
	}
	if _, err := (&forker{gone: true}).fork(kindNetns, false, nil, nil); !errors.Is(err, errForkerGone) {
		t.Errorf("a request to a gone forker: %v, want errForkerGone", err)
	}
}

// TestForkerClonesIntoCgroup: an init the forker clones with a cgroup v2
// directory starts in that cgroup (CLONE_INTO_CGROUP), never outside it.
// It needs a cgroup v2 hierarchy it may create a cgroup in.
func TestForkerClonesIntoCgroup(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	mnt := cgroup2Mount(t)
	dir, err := os.MkdirTemp(mnt, "agentbox-test-")
	if err != nil {
		t.Skipf("cannot create a cgroup v2 cgroup: %v", err)
	}
	defer os.Remove(dir)
	cg, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cg.Close()
	f, err := startForker()
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	ctl, child := ctlPair(t)
	p, err := f.fork(kindNetns, os.Geteuid() == 0 && inInitialUserNS(), child, cg)
	child.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", p.pid()))
	if err != nil {
		t.Fatal(err)
	}
	want := "0::/" + strings.TrimPrefix(dir, mnt+"/") + "\n"
	if !strings.Contains(string(b), want) {
		t.Errorf("the init is in\n%s\nwant the line %q", b, want)
	}
	ctl.Close() // the init sees EOF and exits
	if _, err := p.wait(); err != nil {
		t.Fatal(err)
	}
}

// cgroup2Mount is where a cgroup v2 hierarchy is mounted, or skips.
func cgroup2Mount(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if f := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(f) > 4 {
			return f[4]
		}
	}
	t.Skip("no cgroup v2 hierarchy")
	return ""
}

// TestForkerMovesByProcs: given cgroup.procs files (a cgroup v2 it could
// not clone into), the forker moves the init it cloned into their cgroups
// before it answers, and so before it could reap it. (Any cgroup's
// cgroup.procs serves: a v1 one on a machine without v2 controllers.)
func TestForkerMovesByProcs(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	cg, err := newSandboxCgroup()
	if err != nil {
		t.Skipf("no cgroups: %v", err)
	}
	defer cg.closeAsync()
	var procs []*os.File
	for _, d := range cg.dirs {
		p, err := os.OpenFile(filepath.Join(d, "cgroup.procs"), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		procs = append(procs, p)
	}
	f, err := startForker()
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	ctl, child := ctlPair(t)
	p, err := f.fork(kindNetns, os.Geteuid() == 0 && inInitialUserNS(), child, nil, procs...)
	child.Close()
	if err != nil {
		t.Fatal(err)
	}
	if p.moveErr != nil {
		t.Fatal(p.moveErr)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", p.pid()))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range cg.dirs {
		if name := filepath.Base(d); !strings.Contains(string(b), "/"+name+"\n") {
			t.Errorf("the init is in\n%s\nwant its cgroup %s", b, name)
		}
	}
	ctl.Close() // the init sees EOF and exits
	if _, err := p.wait(); err != nil {
		t.Fatal(err)
	}
}
