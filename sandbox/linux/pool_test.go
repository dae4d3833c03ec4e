//go:build linux

package linux

import (
	"context"
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
