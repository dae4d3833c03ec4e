package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/audit"
)

// auditCLI runs the CLI in-process with its own state directory.
func auditCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// auditTestLog writes evs to a new log (checkpoint at Close) in a state
// directory private to the test, and returns the log's path.
func auditTestLog(t *testing.T, evs []audit.Event) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AGENTBOX_STATE_DIR", filepath.Join(dir, "state"))
	p := filepath.Join(dir, "agent.log")
	l, err := audit.Open(p, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if err := l.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func auditSampleEvents(n int) []audit.Event {
	evs := make([]audit.Event, n)
	for i := range evs {
		evs[i] = audit.Event{AgentName: "email-sorter", AgentID: "3fa2", EventType: audit.CommandExec, Allowed: i%2 == 0,
			Resource: "cmd-" + string(rune('a'+i)), Rule: "r"}
	}
	return evs
}

func TestVerifyCLIIntact(t *testing.T) {
	p := auditTestLog(t, auditSampleEvents(5))
	code, out, errOut := auditCLI(t, "verify", p)
	if code != 0 || out != "✅ intact, entries 1–5, chain unbroken, checkpoint 1 signed\n" || errOut != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = auditCLI(t, "verify", "--json", p)
	var rep audit.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.OK || rep.Entries != 5 || rep.Checkpoints != 1 {
		t.Fatalf("--json: exit %d, %q, %v", code, out, err)
	}
}

func TestVerifyCLITampered(t *testing.T) {
	tests := []struct {
		name   string
		mutate func([][]byte) [][]byte
		want   string // prefix of the one stderr line
	}{
		{"edited", func(ls [][]byte) [][]byte {
			ls[2] = bytes.Replace(ls[2], []byte(`"allowed":true`), []byte(`"allowed":false`), 1)
			return ls
		}, "❌ tampered at entry 3 (edited): entry 3 was edited"},
		{"deleted", func(ls [][]byte) [][]byte { return append(ls[:1:1], ls[2:]...) }, "❌ tampered at entry 2 (deleted)"},
		{"reordered", func(ls [][]byte) [][]byte { ls[3], ls[4] = ls[4], ls[3]; return ls }, "❌ tampered at entry 4 (reordered)"},
		{"truncated", func(ls [][]byte) [][]byte { return ls[:3] }, "❌ tampered at entry 4 (truncated)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := auditTestLog(t, auditSampleEvents(6))
			b, _ := os.ReadFile(p)
			ls := tc.mutate(bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")))
			if err := os.WriteFile(p, append(bytes.Join(ls, []byte("\n")), '\n'), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := auditCLI(t, "verify", p)
			if code != 1 || out != "" || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and one line starting %q", code, out, errOut, tc.want)
			}
			code, out, _ = auditCLI(t, "verify", "--json", p)
			var rep audit.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.OK || rep.FirstBad == 0 {
				t.Fatalf("--json: exit %d, %q, %v", code, out, err)
			}
		})
	}
}

func TestVerifyCLITornAndUnsigned(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("AGENTBOX_STATE_DIR", filepath.Join(dir, "state"))
	p := filepath.Join(dir, "agent.log")
	l, err := audit.Open(p, audit.Options{CheckpointEvery: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, e := range auditSampleEvents(3) {
		if err := l.Append(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := auditCLI(t, "verify", p)
	if code != 0 || !strings.HasPrefix(out, "✅ intact, entries 1–3, chain unbroken, no signed checkpoint yet") {
		t.Fatalf("unsigned: exit %d, %q", code, out)
	}
	f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"id":4,"hash":"ab`)
	f.Close()
	code, out, _ = auditCLI(t, "verify", p)
	if code != 0 || !strings.Contains(out, "entries 1–3") || !strings.Contains(out, "cut short (18 bytes") {
		t.Fatalf("torn: exit %d, %q", code, out)
	}
}

func TestVerifyCLIErrors(t *testing.T) {
	p := auditTestLog(t, auditSampleEvents(2))
	pub, err := os.ReadFile(filepath.Join(os.Getenv("AGENTBOX_STATE_DIR"), "audit", "key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	notLog := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(notLog, []byte("name: a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"missing file", []string{"verify", p + ".nope"}, 1, "agentbox: verify: " + p + ".nope: no such audit log\n"},
		{"no argument", []string{"verify"}, 125, "exactly one"},
		{"two arguments", []string{"verify", p, p}, 125, "exactly one"},
		{"bad flag", []string{"verify", "--nope", p}, 125, "unknown flag"},
		{"bad key", []string{"verify", "--key", "garbage", p}, 1, "verifier key"},
		{"not a log", []string{"verify", notLog}, 1, "(or this is not an agentbox audit log)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := auditCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.err) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, tc.code, tc.err)
			}
		})
	}
	// On a machine without the key: refused, with a hint; with --key: checked.
	t.Setenv("AGENTBOX_STATE_DIR", filepath.Join(t.TempDir(), "other"))
	code, _, errOut := auditCLI(t, "verify", p)
	if code != 1 || !strings.Contains(errOut, "no audit key") || !strings.Contains(errOut, "--key") {
		t.Fatalf("no key: exit %d, %q", code, errOut)
	}
	code, out, _ := auditCLI(t, "verify", "--key", strings.TrimSpace(string(pub)), p)
	if code != 0 || !strings.HasPrefix(out, "✅ intact, entries 1–2") {
		t.Fatalf("--key: exit %d, %q", code, out)
	}
}
