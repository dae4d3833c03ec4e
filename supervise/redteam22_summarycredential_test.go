//go:build linux

package supervise

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/internal/syncbuf"
)

// TestRedteam22SummaryCredentialMisattributed: an agent makes the audit
// log name the wrong credential for its leak.
//
// The netLimiter (supervise/netlimit.go) counts the proxy's decisions past
// a type's burst under one key: event type, rule and verdict. Every
// refused placeholder has the rule "credential-leak", whichever credential
// it belongs to, so a run's leaks of every credential share one summary;
// netSummary.event copies details.credential from the summary's first
// decision only (s.template), replaces the reason (the only other place
// that names the credential) with "N decisions like this …", and the
// targets list names hosts, not credentials. The agent, whose manifest
// holds a decoy credential (DECOY) and the one that matters (GMAIL_TOKEN),
// sends DECOY's placeholder in netBurst+20 plain-HTTP requests (refused,
// ~1 s), then GMAIL_TOKEN's placeholder once: the proxy refuses it, but
// the log records it inside a credential_leak_blocked summary whose
// details.credential is "DECOY". No entry of the log names GMAIL_TOKEN;
// an operator (or `agentbox audit`) reading the log sees only decoy leaks
// and believes the mail token was never touched. The same holds for
// credential_use (which credential was injected where) and, in a smaller
// way, for details.proto (the first decision's) and details.addr (dropped
// from every summary).
//
// The control: the same GMAIL_TOKEN leak after a short decoy flood is
// logged on its own with details.credential "GMAIL_TOKEN".
//
// Severity: medium (misattribution in the audit log of the event it exists
// to record: which secret the agent tried to exfiltrate; the refusal
// itself stands). Root and unprivileged callers alike.
//
// Fix: key the count by credential as well (and proto), or keep in the
// summary the set of credentials (and addresses) its decisions named, as
// is done for targets.
//
// Fixed: the netLimiter's count is keyed by credential and protocol as
// well, a summary's reason names its credential, and it keeps the distinct
// addresses its decisions resolved to (TestNetLimiterKeepsCredentialsApart).
func TestRedteam22SummaryCredentialMisattributed(t *testing.T) {
	run := func(t *testing.T, flood int) (named, decoyCounted int) {
		f := newFixture(t)
		m := f.manifest("name: summ22\npermissions:\n  network: {allow: [api.example.com, mail.example.com], deny: [\"*\"]}\n" +
			"  credentials: [{name: DECOY, hosts: [api.example.com]}, {name: GMAIL_TOKEN, hosts: [mail.example.com]}]\n" +
			"audit: {log_level: minimal}\n")
		script := fmt.Sprintf(`import os, socket
h, p = os.environ["HTTPS_PROXY"][len("http://"):].rsplit(":", 1)
def send(data):
    s = socket.create_connection((h, int(p)))
    s.sendall(data)
    s.recv(4096)
    s.close()
d = os.environ["DECOY"].encode()
for i in range(%d):
    send(b"GET http://api.example.com/ HTTP/1.1\r\nHost: api.example.com\r\nX-Api-Key: " + d + b"\r\n\r\n")
g = os.environ["GMAIL_TOKEN"].encode()
send(b"GET http://mail.example.com/ HTTP/1.1\r\nHost: mail.example.com\r\nX-Api-Key: " + g + b"\r\n\r\n")
print("done")`, flood)
		out, nt := &syncbuf.Buffer{}, &notices{}
		ag, err := Start(context.Background(), m, Options{
			Program: python, Args: []string{"-c", script}, Stdout: out, Stderr: out,
			Registry: f.reg, Notify: nt.add, Grace: 300 * time.Millisecond, Approved: true,
			Credentials: r20Provider{},
		})
		if err != nil {
			t.Fatal(err)
		}
		r := &run{ag: ag, stdout: out, notices: nt}
		res := r.wait(t, 180*time.Second)
		if res.ExitCode != 0 || !strings.Contains(out.String(), "done") {
			t.Fatalf("exit %d output %q", res.ExitCode, out.String())
		}
		for _, e := range f.events(res.AuditLog, res.ID) {
			if e.EventType != audit.CredentialLeakBlocked {
				continue
			}
			n := 1
			if c, ok := e.Details["summarized"]; ok {
				fmt.Sscan(fmt.Sprint(c), &n)
			}
			switch e.Details["credential"] {
			case "GMAIL_TOKEN":
				named += n
			case "DECOY":
				decoyCounted += n
			}
		}
		return named, decoyCounted
	}
	t.Run("control", func(t *testing.T) {
		named, decoy := run(t, 5)
		if named != 1 || decoy != 5 {
			t.Fatalf("without a flood: GMAIL_TOKEN leaks logged %d, DECOY %d; want 1 and 5", named, decoy)
		}
	})
	t.Run("attack", func(t *testing.T) {
		flood := netBurst + 20
		named, decoy := run(t, flood)
		if named != 1 {
			t.Errorf("after %d DECOY leaks, the log attributes %d leaks to GMAIL_TOKEN (want 1) and %d to DECOY (want %d): the mail token's leak is logged as the decoy's", flood, named, decoy, flood)
		}
	})
}
