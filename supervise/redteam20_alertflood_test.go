//go:build linux

package supervise

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/syncbuf"
	"github.com/agentbox-dev/agentbox/vault"
)

// r20Provider hands out one fixed credential value.
type r20Provider struct{}

func (r20Provider) Credential(context.Context, string) (vault.Secret, error) {
	return vault.NewSecret([]byte("r20-real-value-5d1c")), nil
}

// TestRedteam20AlertFloodSilencesLeakAlert: an agent silences the alert
// line of its credential leak by spending the run's alert lines first.
//
// The operator asks for alert_on: [network_deny, credential_leak_blocked]
// to be told, live on the terminal, when the agent tries something. A run
// prints at most maxAlertLines alert lines, whatever their kind
// (supervise/events.go, recorder.raise: `case n <= maxAlertLines`), and the
// budget is shared by every kind. The agent makes maxAlertLines refused
// CONNECTs to junk hosts (well under a second, and within the netLimiter's
// burst, so each is an alert), then sends its credential's placeholder in
// a plain-HTTP request, the attempt the operator most needs to see: the
// proxy refuses it and the log has credential_leak_blocked, but no alert
// line about it is ever printed; the operator saw 100 lines of junk and a
// "further alerts are only logged" notice.
//
// The control: the same leak without the flood prints its alert line.
//
// Severity: low (the refusal and the log entry stand; only the live
// alert, which alert_on exists for, is lost). Both root and unprivileged
// callers.
//
// Suggested fix: budget alert lines per kind (or per event type), so that
// floods of one kind cannot silence another; at the least, always print
// the first alert of each kind.
//
// Fixed: maxAlertLines is a bound for each kind (supervise/events.go,
// recorder.raise).
func TestRedteam20AlertFloodSilencesLeakAlert(t *testing.T) {
	run := func(t *testing.T, flood int) (leakAlerts int, alerts []string, leakLogged bool) {
		f := newFixture(t)
		m := f.manifest("name: alerts20\npermissions:\n  network: {allow: [api.example.com], deny: [\"*\"]}\n" +
			"  credentials: [{name: API_KEY, hosts: [api.example.com]}]\n" +
			"audit: {log_level: minimal, alert_on: [network_deny, credential_leak_blocked]}\n")
		script := fmt.Sprintf(`import os, socket
h, p = os.environ["HTTPS_PROXY"][len("http://"):].rsplit(":", 1)
def send(data):
    s = socket.create_connection((h, int(p)))
    s.sendall(data)
    s.recv(4096)
    s.close()
for i in range(%d):
    send(b"CONNECT j%%d.junk.example:443 HTTP/1.1\r\n\r\n" %% i)
ph = os.environ["API_KEY"].encode()
send(b"GET http://api.example.com/ HTTP/1.1\r\nHost: api.example.com\r\nX-Api-Key: " + ph + b"\r\n\r\n")
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
		res := r.wait(t, 120*time.Second)
		if res.ExitCode != 0 || !strings.Contains(out.String(), "done") {
			t.Fatalf("exit %d output %q", res.ExitCode, out.String())
		}
		for _, e := range f.events(res.AuditLog, res.ID) {
			if e.EventType == "credential_leak_blocked" {
				leakLogged = true
			}
		}
		alerts = nt.of(NoticeAlert)
		for _, a := range alerts {
			if strings.HasPrefix(a, "credential_leak_blocked") {
				leakAlerts++
			}
		}
		return leakAlerts, alerts, leakLogged
	}
	t.Run("control", func(t *testing.T) {
		n, alerts, logged := run(t, 2)
		if n != 1 || !logged {
			t.Fatalf("without a flood: %d credential_leak_blocked alert lines (logged %v), want 1; alerts %q", n, logged, alerts)
		}
	})
	t.Run("attack", func(t *testing.T) {
		n, alerts, logged := run(t, maxAlertLines)
		if !logged {
			t.Fatalf("the leak was not even logged")
		}
		if n != 1 {
			t.Errorf("after %d junk denials the credential leak printed %d alert lines, want 1 (%d alert lines in all, last %q)", maxAlertLines, n, len(alerts), alerts[len(alerts)-1])
		}
	})
}
