//go:build linux

package attack_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam16TCPBuffersPastMemoryCgroup queues twice the sandbox's
// memory limit in TCP connections over the sandbox's own loopback, none
// of it read. The data is kernel memory the sandbox made and holds: where
// agentbox reports a memory cgroup, that memory must count against it, so
// the kernel stops the writes (cgroup v2 charges socket memory to the
// cgroup). Under cgroup v1 the memory cgroup charges TCP buffers only
// once memory.kmem.tcp.limit_in_bytes is set, which agentbox does not do:
// the sandbox holds any amount, and the machine's TCP memory
// (net.ipv4.tcp_mem, one pool for every network namespace) fills up, so
// that the host's own connections, the egress proxy's and other
// sandboxes' stall or fail. A control holds a little.
//
// Fixed: under v1 the sandbox's cgroup also gets the memory limit as its
// TCP limit (memory.kmem.tcp.limit_in_bytes), which turns the accounting
// on.
func TestRedteam16TCPBuffersPastMemoryCgroup(t *testing.T) {
	t.Parallel()
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts against RLIMIT_DATA in the sandbox's init")
	}
	const limitMiB = 192
	cfg := ciConfig()
	cfg.ResourceLimits.MaxMemoryBytes = limitMiB << 20
	m := newManager(t, cfg)
	ps := []probe{
		control("tcp_hold_small", "tcphold:16", "held"),
		control("alloc_quarter", "alloc:"+strconv.Itoa(limitMiB/4), "MiB"),
		attack("tcp_hold_twice_limit", "tcphold:"+strconv.Itoa(2*limitMiB)),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := m.ExecArgs(ctx, attackerBin, probeArgs(ps), agentbox.WithWorkingDir("/"))
	if err != nil {
		t.Fatalf("the sandbox could not run the attacker: %v", err)
	}
	t.Logf("layers %q; exit %d; output:\n%s", res.Layers, res.ExitCode, res.Stdout)
	if !memoryCgroup(res.Layers) {
		t.Skip("no memory cgroup reported: the memory limit is per process, a documented limit")
	}
	o := parseOutput(res.Stdout)
	for _, p := range ps[:2] {
		r, ok := o.results[p.label]
		if !ok {
			t.Fatalf("%s: no result (exit %d)\n%s", p.label, res.ExitCode, res.Stdout)
		}
		checkOne(t, p, r)
	}
	// Killed by the kernel for its memory, or refused the writes: bounded.
	if r, ok := o.results["tcp_hold_twice_limit"]; ok {
		checkOne(t, ps[2], r)
	} else if res.ExitCode != 137 {
		t.Errorf("the bomb neither finished nor was killed (exit %d)\n%s", res.ExitCode, res.Stdout)
	}
}
