//go:build linux

package linux

import (
	"context"
	"fmt"
	"io"
	"os"
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
	r.Warm(true)
	waitWarm(t, &r.pool, kindNetns)
	r.pool.mu.Lock()
	warmPid := r.pool.ready[kindNetns].proc.pid()
	r.pool.mu.Unlock()

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
// depends on no spec (the host tree, /proc, /dev) while it waits, and a
// spec with a read allow-list, which needs another root, still gets only
// the paths it lists.
func TestWarmInitPrebuildsRoot(t *testing.T) {
	if !probeUserns().OK {
		t.Skip("user namespaces unavailable")
	}
	r := &Runtime{}
	defer r.Close()
	r.Warm(true)
	waitWarm(t, &r.pool, kindNetns)
	r.pool.mu.Lock()
	pid := r.pool.ready[kindNetns].proc.pid()
	r.pool.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), " "+newRoot+"/proc ") && strings.Contains(string(b), " "+newRoot+"/dev ") {
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
