//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// poolState reports whether a warm init of kind is ready and whether one is
// starting.
func (p *pool) state(kind initKind) (ready, pending bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ready[kind] != nil, p.pending[kind] != nil
}

// waitWarm waits until a warm init of kind is ready.
func waitWarm(t *testing.T, p *pool, kind initKind) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ready, _ := p.state(kind); ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no warm init became ready")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// readyInit warms r for sandboxes with a network namespace and returns the
// pid of the init that becomes ready.
func readyInit(t *testing.T, r *Runtime) int {
	t.Helper()
	r.Warm(true)
	waitWarm(t, &r.pool, kindNetns)
	r.pool.mu.Lock()
	defer r.pool.mu.Unlock()
	return r.pool.ready[kindNetns].proc.pid()
}

// TestWarmInitReplacedOnRelease checks when the runtime starts the next warm
// init: not while a sandbox runs (it would compete with it for the CPU), but
// once the sandbox is released; and that the sandbox really ran in the warm
// init taken from the pool.
func TestWarmInitReplacedOnRelease(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	warmPid := readyInit(t, r)

	spec := &sandbox.Spec{Network: sandbox.NetworkFiltered}
	proc, err := r.Start(context.Background(), spec, &sandbox.Program{Path: "/bin/sleep", Args: []string{"sleep", "30"}})
	if err != nil {
		t.Fatal(err)
	}
	if proc.Pid() != warmPid {
		t.Errorf("sandbox init is pid %d, want the warm init %d", proc.Pid(), warmPid)
	}
	// A warm-up marks itself pending before it starts: no wait is needed.
	if ready, pending := r.pool.state(kindNetns); ready || pending {
		t.Fatalf("a warm init started while the sandbox runs (ready %v, starting %v)", ready, pending)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	st, err := proc.Wait()
	if err != nil || st.Signal == 0 {
		t.Fatalf("wait: %+v, %v; want killed", st, err)
	}
	if ready, pending := r.pool.state(kindNetns); ready || pending {
		t.Fatalf("a warm init started before the sandbox was released (ready %v, starting %v)", ready, pending)
	}
	if err := proc.Close(); err != nil {
		t.Fatal(err)
	}
	waitWarm(t, &r.pool, kindNetns)
}

// TestWarmInitPrebuildsRoot: a warm init builds the part of the root that
// depends on no spec (/proc, /dev) while it waits, and a spec with a read
// allow-list gets only the paths it lists.
func TestWarmInitPrebuildsRoot(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	pid := readyInit(t, r)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), " "+staging+"/proc ") && strings.Contains(string(b), " "+staging+"/dev ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the warm init built no root before its spec:\n%s", b)
		}
		time.Sleep(5 * time.Millisecond)
	}
	dir, err := os.MkdirTemp("/var/tmp", "agentbox-prebuild-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	other := dir + "-other"
	for _, d := range []string{dir, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(d+"/f", []byte("in "+d+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defer os.RemoveAll(other)
	var out strings.Builder
	spec := &sandbox.Spec{Network: sandbox.NetworkBlocked, Filesystem: sandbox.Filesystem{Read: []string{dir}}}
	stdout, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	proc, err := r.Start(context.Background(), spec, &sandbox.Program{Path: "/bin/sh",
		Args: []string{"sh", "-c", "cat " + dir + "/f " + other + "/f /var/lib/dpkg/status 2>/dev/null; ls /usr/bin/env"}, Stdout: w, Stderr: w})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, stdout); close(done) }()
	if _, err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
	<-done
	proc.Close()
	if got, want := out.String(), "in "+dir+"\n/usr/bin/env\n"; got != want {
		t.Errorf("with a read allow-list after a prebuilt root the sandbox saw %q, want %q", got, want)
	}
}

// TestCgroupMoveAwaited: an init still being moved into its cgroup builds
// the sandbox meanwhile but starts the program only once the move is done;
// a move that failed, for a spec whose limits need the cgroup, runs
// nothing. The move is real where it happens (a cgroup v1 host moves every
// init it cannot clone into its cgroup), and held back 100 ms here so that
// it is surely in flight when the spec goes; its failure is simulated.
func TestCgroupMoveAwaited(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{ColdStart: true}
	defer r.Close()
	r.init()
	for _, fail := range []bool{false, true} {
		w, err := startInit(r, kindNetns)
		if err != nil {
			t.Fatal(err)
		}
		if w.cg == nil {
			w.discard()
			t.Skip("no cgroup to move the init into")
		}
		if w.cgMoved != nil {
			if err := <-w.cgMoved; err != nil {
				t.Fatal(err)
			}
		}
		// The sandbox's cgroup is another one, which the init enters 100 ms
		// from now: a program started before that would sit in the first.
		first := w.cg
		defer first.closeAsync()
		second, err := newSandboxCgroup()
		if err != nil {
			t.Fatal(err)
		}
		w.cg = second
		moved := make(chan error, 1)
		w.cgMoved = moved
		w.joinTasks = false // the move, as on cgroup v2 without CLONE_INTO_CGROUP, whatever the version here
		go func() {
			time.Sleep(100 * time.Millisecond)
			if fail {
				moved <- errors.New("simulated failure")
				return
			}
			moved <- second.add(w.proc.pid())
		}()
		r.pool.mu.Lock()
		r.pool.ready = map[initKind]*warmInit{kindNetns: w}
		r.pool.mu.Unlock()
		spec := &sandbox.Spec{Network: sandbox.NetworkBlocked, Limits: sandbox.Limits{MemoryBytes: 512 << 20, Processes: 64}}
		proc, err := r.Start(context.Background(), spec, &sandbox.Program{Path: "/bin/sleep", Args: []string{"sleep", "30"}})
		if fail {
			if err == nil || !strings.Contains(err.Error(), "simulated failure") {
				t.Errorf("a failed move: Start returned %v; want an error naming it", err)
			}
			if proc != nil {
				proc.Kill()
				proc.Close()
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		// The program, the init's only child, sits in the sandbox's cgroup.
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", onlyChild(t, proc.Pid())))
		if err != nil {
			t.Fatal(err)
		}
		if name := filepath.Base(second.dirs[0]); !strings.Contains(string(b), "/"+name+"\n") {
			t.Errorf("the program runs outside its sandbox's cgroup %s:\n%s", name, b)
		}
		proc.Kill()
		proc.Wait()
		proc.Close()
	}
}

// childrenOf lists the children of every thread of pid.
// onlyChild returns the host pid of the one child of pid (an init's: its
// program), looking again for a while: the child may not be forked yet,
// and a program is forked by a thread of the init that then exits, so a
// child seen in neither thread's list while it is handed to the init's
// main thread would be missed by one look.
func onlyChild(t *testing.T, pid int) int {
	t.Helper()
	var kids []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if kids = childrenOf(t, pid); len(kids) == 1 {
			return kids[0]
		}
	}
	t.Fatalf("process %d has children %v, want one", pid, kids)
	return 0
}

func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	var kids []int
	for _, task := range tasks {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		for _, f := range strings.Fields(string(b)) {
			var k int
			fmt.Sscan(f, &k)
			kids = append(kids, k)
		}
	}
	return kids
}

// TestWarmFirst: a cold-start Runtime told to warm its first init starts
// exactly one, cloned by the caller (no forker process), runs the next
// sandbox in it, and starts no spare once that sandbox is released.
func TestWarmFirst(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{ColdStart: true}
	defer r.Close()
	r.WarmFirst(true)
	waitWarm(t, &r.pool, kindNetns)
	r.pool.mu.Lock()
	warmPid := r.pool.ready[kindNetns].proc.pid()
	r.pool.mu.Unlock()
	r.mu.Lock()
	forker := r.fork.f != nil || r.fork.starting
	r.mu.Unlock()
	if forker {
		t.Error("a forker was started for the one init")
	}

	spec := &sandbox.Spec{Network: sandbox.NetworkFiltered}
	proc, err := r.Start(context.Background(), spec, &sandbox.Program{Path: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	if proc.Pid() != warmPid {
		t.Errorf("sandbox init is pid %d, want the warm init %d", proc.Pid(), warmPid)
	}
	if st, err := proc.Wait(); err != nil || st.Code != 0 {
		t.Fatalf("wait: %+v, %v; want exit 0", st, err)
	}
	if err := proc.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // a spare would be pending by now (see TestWarmInitReplacedOnRelease)
	if ready, pending := r.pool.state(kindNetns); ready || pending {
		t.Errorf("a spare init was started after the first (ready %v, starting %v)", ready, pending)
	}
}
