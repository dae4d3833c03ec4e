//go:build linux

package supervise

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

// TestRedteam21NetOversizeSummaryHidesTarget: an agent hides a refused
// connection from the audit log by folding it into a summary too large
// for the log to take.
//
// Since summaries name every distinct target (netlimit.go, admit and
// event: up to netSummaryTargets names, joined into Resource and listed
// again in Details["targets"]), a summary's size is the sum of its
// targets' lengths, twice. A valid host is at most 253 bytes, but a target
// that does not parse is recorded as the client sent it (egress/http.go,
// readProxyRequest: splitLoose(req.RequestURI) for RuleInvalidTarget), up
// to the 64 KiB header block. So after netBurst refused junk CONNECTs whose
// targets are 60,000-byte labels, a dozen more make the next summary of
// kind (network_deny, invalid-target, refused) larger than
// audit.MaxEntryBytes (1 MiB): the log's writer refuses it (commit.go) and
// writes only "1 event could not be written". Every decision in it is
// gone: its count and its targets, among them the one the agent meant to
// hide, a CONNECT to 0x7f.1:22 (the host's loopback spelt so as to slip
// past the guard, itself an invalid-target refusal). README: "every
// decision is still accounted for". The same individually logged junk
// also grows the log by ~120 KB an entry (Resource plus the quoted target
// in Reason): the first burst alone writes some 60 MB, then ~6 MB a second.
//
// The control: the same connection after a flood of short junk targets is
// named and every decision is counted.
//
// Severity: low-medium (audit evasion of refused attempts, and a log that
// grows by megabytes a second; nothing is reached). Affects both root and
// unprivileged callers.
//
// Suggested fix: bound the recorded target (truncate a raw, unparsed
// target to a few hundred bytes, e.g. in Decision.Target or in
// netLimiter.admit) and bound a summary in bytes, not only in names (start
// a new count when the joined targets pass, say, 256 KiB), so that no
// summary can exceed MaxEntryBytes.
//
// Fixed: a decision's target is clipped to maxTargetBytes and its reason to
// maxReasonBytes as the recorder takes it (supervise/events.go, clip), so a
// summary of 200 targets stays far below audit.MaxEntryBytes.
func TestRedteam21NetOversizeSummaryHidesTarget(t *testing.T) {
	const hidden = "0x7f.1"
	run := func(t *testing.T, junkLen, flood int) (named bool, counted int, logBytes int64) {
		f := newFixture(t)
		m := f.manifest("name: oversize21\npermissions: {network: {allow: [api.example.com], deny: [\"*\"]}}\n" +
			"audit: {log_level: minimal}\n")
		script := fmt.Sprintf(`import os, socket
h, p = os.environ["HTTPS_PROXY"][len("http://"):].rsplit(":", 1)
def connect(host):
    s = socket.create_connection((h, int(p)))
    s.sendall(b"CONNECT %%s:22 HTTP/1.1\r\n\r\n" %% host.encode())
    s.recv(200)
    s.close()
for i in range(%d):
    connect("%%d%%s" %% (i, "x" * %d))
connect(%q)
print("done")`, flood, junkLen, hidden)
		r := f.start(m, python, "-c", script)
		res := r.wait(t, 240*time.Second)
		if res.ExitCode != 0 || !strings.Contains(r.stdout.String(), "done") {
			t.Fatalf("exit %d output %q", res.ExitCode, r.stdout.String())
		}
		if st, err := os.Stat(res.AuditLog); err == nil {
			logBytes = st.Size()
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
			if strings.Contains(e.Resource, hidden+":22") || strings.Contains(fmt.Sprint(e.Details["targets"]), hidden+":22") {
				named = true
			}
		}
		return named, counted, logBytes
	}
	flood := netBurst + 300
	t.Run("control", func(t *testing.T) {
		named, counted, size := run(t, 70, flood)
		t.Logf("short junk: log %d bytes", size)
		if !named || counted != flood+1 {
			t.Fatalf("short junk: %s named %v, %d decisions counted; want true, %d", hidden, named, counted, flood+1)
		}
	})
	t.Run("attack", func(t *testing.T) {
		// A free token (netRate a second) may still let the hidden
		// CONNECT be logged on its own; a few tries find a run where it
		// is not.
		lost, hiddenAway := 0, false
		for try := 1; try <= 3 && !hiddenAway; try++ {
			named, counted, size := run(t, 60000, flood)
			t.Logf("try %d, 60,000-byte junk targets: log %d bytes for %d decisions, %d accounted for, %s named %v", try, size, flood+1, counted, hidden, named)
			lost = max(lost, flood+1-counted)
			hiddenAway = !named
		}
		if lost > 0 {
			t.Errorf("%d refused CONNECTs made, %d not accounted for in the audit log: a summary over MaxEntryBytes was dropped", flood+1, lost)
		}
		if hiddenAway {
			t.Errorf("the refused CONNECT to %s:22 is named nowhere in the audit log", hidden)
		}
	})
}
