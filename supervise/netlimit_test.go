package supervise

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

// TestNetLimiter: a burst is logged one by one, what comes past it is
// counted by kind and summarised, and the budget refills with time.
func TestNetLimiter(t *testing.T) {
	var mu sync.Mutex
	var sums []audit.Event
	l := newNetLimiter(func(e audit.Event) { mu.Lock(); sums = append(sums, e); mu.Unlock() })
	t0 := time.Now()
	deny := func(host, rule string) audit.Event {
		return audit.Event{EventType: audit.NetworkDeny, Resource: host + ":443", Rule: rule, Timestamp: t0, Details: map[string]any{"proto": "connect"}}
	}
	admitted := 0
	for i := range netBurst + 100 {
		if l.admit(deny(fmt.Sprintf("h%d.example", i), "default-deny"), t0) {
			admitted++
		}
	}
	for range 7 {
		l.admit(deny("x.example", "deny:x.example"), t0)
	}
	if admitted != netBurst {
		t.Fatalf("admitted %d of a burst, want %d", admitted, netBurst)
	}
	l.flush()
	mu.Lock()
	got := sums
	mu.Unlock()
	if len(got) != 2 {
		t.Fatalf("summaries %+v, want one per rule", got)
	}
	if n := got[0].Details["summarized"]; n != 100 || got[0].Rule != "default-deny" || len(got[0].Details["targets"].([]string)) != netSampleTargets {
		t.Errorf("first summary %+v", got[0])
	}
	if n := got[1].Details["summarized"]; n != 7 || got[1].Resource != "x.example:443" || got[1].Details["proto"] != "connect" {
		t.Errorf("second summary %+v", got[1])
	}
	// Two seconds later the budget has 2*netRate decisions again.
	later := t0.Add(2 * time.Second)
	admitted = 0
	for range 3 * netRate {
		if l.admit(deny("y.example", "default-deny"), later) {
			admitted++
		}
	}
	if admitted != 2*netRate {
		t.Errorf("admitted %d after two seconds, want %d", admitted, 2*netRate)
	}
	l.flush()
}
