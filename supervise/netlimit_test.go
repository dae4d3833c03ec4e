package supervise

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

// TestNetLimiter: a burst is logged one by one, what comes past it is
// counted by kind and summarised with every distinct target, and the
// budget refills with time.
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
	if n := got[0].Details["summarized"]; n != 100 || got[0].Rule != "default-deny" || len(got[0].Details["targets"].([]string)) != 100 {
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

// TestNetLimiterNamesEveryTarget: past the budget, every distinct target
// is named in some summary (a full one is written as it is and a new one
// begins), one event type's flood neither uses up another's budget nor
// its names, and past the run's bound a summary counts what it does not
// name.
func TestNetLimiterNamesEveryTarget(t *testing.T) {
	var sums []audit.Event
	l := newNetLimiter(func(e audit.Event) { sums = append(sums, e) })
	t0 := time.Now()
	ev := func(typ, host string) audit.Event {
		return audit.Event{EventType: typ, Resource: host, Rule: "r", Allowed: typ == audit.NetworkAllow, Timestamp: t0}
	}
	for i := range netBurst + netSummaryTargets + 1 {
		l.admit(ev(audit.NetworkDeny, fmt.Sprintf("junk%d", i)), t0)
	}
	l.admit(ev(audit.NetworkDeny, fmt.Sprintf("junk%d", netBurst+netSummaryTargets)), t0) // named in the open summary already
	if !l.admit(ev(audit.NetworkAllow, "allowed.example"), t0) {
		t.Fatal("a flood of refusals used up the budget of allowed connections")
	}
	l.flush()
	if len(sums) != 2 {
		t.Fatalf("%d summaries, want 2 (a full one and the rest)", len(sums))
	}
	names := map[string]bool{}
	total := 0
	for _, s := range sums {
		for _, n := range s.Details["targets"].([]string) {
			names[n] = true
		}
		total += s.Details["summarized"].(int)
	}
	if len(names) != netSummaryTargets+1 || total != netSummaryTargets+2 || !names[fmt.Sprintf("junk%d", netBurst+netSummaryTargets)] {
		t.Errorf("summaries name %d targets and count %d decisions, want %d and %d: %+v", len(names), total, netSummaryTargets+1, netSummaryTargets+2, sums)
	}

	// Past the run's bound of names for one type, decisions are counted
	// as unnamed, but a target the run named already is named again at no
	// cost; another type still names its targets.
	sums = nil
	for i := len(l.named[audit.NetworkDeny]); i < netNamedTargets; i++ {
		l.named[audit.NetworkDeny][fmt.Sprintf("filler%d", i)] = true
	}
	l.admit(ev(audit.NetworkDeny, "hidden.example"), t0)
	l.admit(ev(audit.NetworkDeny, "junk600"), t0) // named in the first part's summary
	for range netBurst {
		l.admit(ev(audit.NetworkAllow, "a.example"), t0)
	}
	l.admit(ev(audit.NetworkAllow, "b.example"), t0)
	l.flush()
	if len(sums) != 2 {
		t.Fatalf("%d summaries, want 2: %+v", len(sums), sums)
	}
	if d := sums[0].Details; d["unnamed"] != 1 || !slices.Equal(d["targets"].([]string), []string{"junk600"}) || !strings.Contains(sums[0].Reason, "1 of them to targets not named") {
		t.Errorf("past the bound: %+v", sums[0])
	}
	if sums[1].Resource != "a.example b.example" {
		t.Errorf("allowed connections' summary names %q, want a.example and b.example", sums[1].Resource)
	}
}

// TestNetLimiterKeepsCredentialsApart: past the burst, a credential's
// decisions are counted apart from another's (a flood of a decoy's leaks
// must not log the real one's under the decoy's name), and a summary keeps
// the addresses its targets resolved to.
func TestNetLimiterKeepsCredentialsApart(t *testing.T) {
	var sums []audit.Event
	l := newNetLimiter(func(e audit.Event) { sums = append(sums, e) })
	t0 := time.Now()
	leak := func(cred, addr string) audit.Event {
		return audit.Event{EventType: audit.CredentialLeakBlocked, Resource: "h.example:80", Rule: "credential-leak", Timestamp: t0,
			Details: map[string]any{"proto": "http", "credential": cred, "addr": addr}}
	}
	for range netBurst + 3 {
		l.admit(leak("DECOY", "192.0.2.1"), t0)
	}
	l.admit(leak("DECOY", "192.0.2.2"), t0)
	l.admit(leak("GMAIL_TOKEN", "192.0.2.1"), t0)
	l.flush()
	tests := []struct {
		cred  string
		count int
		addrs []string
	}{
		{"DECOY", 4, []string{"192.0.2.1", "192.0.2.2"}},
		{"GMAIL_TOKEN", 1, []string{"192.0.2.1"}},
	}
	if len(sums) != len(tests) {
		t.Fatalf("%d summaries, want one per credential: %+v", len(sums), sums)
	}
	for i, tt := range tests {
		d := sums[i].Details
		if d["credential"] != tt.cred || d["summarized"] != tt.count || !slices.Equal(d["addrs"].([]string), tt.addrs) ||
			!strings.Contains(sums[i].Reason, "credential "+tt.cred) {
			t.Errorf("summary %d: %+v, reason %q; want credential %s, %d decisions, addresses %v", i, d, sums[i].Reason, tt.cred, tt.count, tt.addrs)
		}
	}
}
