package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

func auditQueryEvents() []audit.Event {
	old := time.Now().Add(-2 * time.Hour)
	return []audit.Event{
		{Timestamp: old, AgentName: "email-sorter", AgentID: "3fa2", EventType: audit.AgentStart, Allowed: true, Resource: "manifests/email-sorter.yaml", Rule: "manifest"},
		{Timestamp: old, AgentName: "email-sorter", AgentID: "3fa2", EventType: audit.NetworkDeny, Resource: "evil.example:443", Rule: "network.deny"},
		{AgentName: "email-sorter", AgentID: "3fa2", EventType: audit.NetworkAllow, Allowed: true, Resource: "api.anthropic.com:443", Rule: "network.allow"},
		{AgentName: "timeout-test", AgentID: "77b1", EventType: audit.LimitBreached, Resource: "max_duration", Rule: "limits.max_duration"},
		{AgentName: "timeout-test", AgentID: "77b1", EventType: audit.AgentKilled, Resource: "pid 4242"},
	}
}

func TestAuditCLITable(t *testing.T) {
	p := auditTestLog(t, auditQueryEvents())
	code, out, errOut := auditCLI(t, "audit", "--log", p)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	ls := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(ls) != 6 || !strings.HasPrefix(ls[0], "TIME") {
		t.Fatalf("output:\n%s", out)
	}
	// Columns are aligned: every column starts at the header's offset.
	for _, col := range []string{"AGENT", "EVENT", "DECISION", "RESOURCE", "RULE"} {
		at := strings.Index(ls[0], col)
		for _, l := range ls[1:] {
			if at >= len(l) || l[at-1] != ' ' || l[at] == ' ' {
				t.Fatalf("column %s not aligned at %d in %q", col, at, l)
			}
		}
	}
	for i, want := range []string{"agent_start", "network_deny", "network_allow", "limit_breached", "agent_killed"} {
		if !strings.Contains(ls[i+1], want) {
			t.Fatalf("line %d %q lacks %s", i+1, ls[i+1], want)
		}
	}
	if !strings.Contains(ls[2], "denied") || !strings.Contains(ls[3], "allowed") || !strings.HasSuffix(ls[5], "-") {
		t.Fatalf("decisions or empty rule wrong:\n%s", out)
	}
}

func TestAuditCLIFilters(t *testing.T) {
	p := auditTestLog(t, auditQueryEvents())
	tests := []struct {
		name string
		args []string
		want []string // resources, in order
	}{
		{"deny", []string{"--deny"}, []string{"evil.example:443", "max_duration", "pid 4242"}},
		{"agent by name", []string{"--agent", "timeout-test"}, []string{"max_duration", "pid 4242"}},
		{"agent by id", []string{"--agent", "3fa2"}, []string{"manifests/email-sorter.yaml", "evil.example:443", "api.anthropic.com:443"}},
		{"type", []string{"--type", "network_deny"}, []string{"evil.example:443"}},
		{"last", []string{"--last", "1h"}, []string{"api.anthropic.com:443", "max_duration", "pid 4242"}},
		{"limit", []string{"--limit", "2"}, []string{"max_duration", "pid 4242"}},
		{"combined", []string{"--deny", "--last", "1h", "--agent", "timeout-test", "--limit", "1"}, []string{"pid 4242"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := auditCLI(t, append([]string{"audit", "--log", p, "--json"}, tc.args...)...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var e audit.Event
				if err := json.Unmarshal([]byte(l), &e); err != nil {
					t.Fatalf("line %q: %v", l, err)
				}
				if e.ID == 0 || len(e.Hash) != 64 {
					t.Fatalf("incomplete event %+v", e)
				}
				got = append(got, e.Resource)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	code, out, errOut := auditCLI(t, "audit", "--log", p, "--type", "tool_deny")
	if code != 0 || out != "" || !strings.Contains(errOut, "no matching events") {
		t.Fatalf("no match: exit %d, %q, %q", code, out, errOut)
	}
}

// Logged strings come from agents; printed in a terminal they must not be
// able to move the cursor, clear lines or flip text direction.
func TestAuditCLIEscapesTerminalControls(t *testing.T) {
	hostile := "cat ~/.ssh/id_rsa\x1b[2K\x1b[1A\rharmless\u202etxt.exe\x07\u009b"
	p := auditTestLog(t, []audit.Event{{AgentName: "x\x1b]0;title\x07", EventType: audit.CommandRefused, Resource: hostile, Rule: "r\tule"}})
	code, out, _ := auditCLI(t, "audit", "--log", p)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, bad := range []string{"\x1b", "\r", "\x07", "\u202e", "\u009b", "\t"} {
		if strings.Contains(out, bad) {
			t.Fatalf("output contains %q:\n%q", bad, out)
		}
	}
	for _, want := range []string{`\x1b[2K`, `\u202e`, `\x0d`, `\x9b`, `r\x09ule`} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	if got := auditCell(strings.Repeat("é", 100), 10); got != strings.Repeat("é", 10)+"…" {
		t.Fatalf("cut: %q", got)
	}
}

func TestAuditCLIErrors(t *testing.T) {
	p := auditTestLog(t, auditQueryEvents())
	tests := []auditCLIError{
		{"no --log", []string{"audit"}, 125, "--log FILE is required"},
		{"argument", []string{"audit", "--log", p, "extra"}, 125, "no arguments"},
		{"unknown type", []string{"audit", "--log", p, "--type", "network_denied"}, 125, `unknown --type "network_denied"`},
		{"negative limit", []string{"audit", "--log", p, "--limit", "-1"}, 125, "--limit -1 must be a positive number"},
		{"zero limit", []string{"audit", "--log", p, "--limit", "0"}, 125, "--limit 0 must be a positive number"},
		{"negative last", []string{"audit", "--log", p, "--last", "-5m"}, 125, "--last -5m0s must be a positive duration"},
		{"zero last", []string{"audit", "--log", p, "--last", "0s"}, 125, "--last 0s must be a positive duration"},
		{"bad duration", []string{"audit", "--log", p, "--last", "yesterday"}, 125, "invalid argument"},
		{"bad flag", []string{"audit", "--log", p, "--denied"}, 125, "unknown flag"},
		{"missing file", []string{"audit", "--log", p + ".nope"}, 125, "agentbox: audit: " + p + ".nope: no such audit log; check the --log path\n"},
		{"directory", []string{"audit", "--log", filepath.Dir(p)}, 125, "agentbox: audit: " + filepath.Dir(p) + " is a directory, not an audit log file\n"},
	}
	checkAuditCLIErrors(t, tests)
}

// A line that is not an entry does not hide the others: every entry is
// printed, each bad line is named on stderr, and audit exits 1.
func TestAuditCLIPrintsAroundBadLines(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(b []byte) []byte
		warns []string
	}{
		{"garbage appended", func(b []byte) []byte { return append(b, "garbage\n"...) },
			[]string{"line 6 is not an audit entry, skipped: not a JSON object"}},
		{"blank line in the middle", func(b []byte) []byte {
			i := bytes.IndexByte(b, '\n') + 1
			return append(b[:i:i], append([]byte("\n"), b[i:]...)...)
		}, []string{"line 2 is not an audit entry, skipped: blank line"}},
		{"two bad lines", func(b []byte) []byte { return append(append([]byte("{}\n"), b...), "[]\n"...) },
			[]string{"line 1 is not an audit entry", "line 7 is not an audit entry"}},
	}
	for _, tc := range tests {
		for _, asJSON := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s json=%v", tc.name, asJSON), func(t *testing.T) {
				p := auditTestLog(t, auditQueryEvents())
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, tc.edit(b), 0o600); err != nil {
					t.Fatal(err)
				}
				args := []string{"audit", "--log", p}
				if asJSON {
					args = append(args, "--json")
				}
				code, out, errOut := auditCLI(t, args...)
				if code != 1 {
					t.Fatalf("exit %d, want 1; stderr %q", code, errOut)
				}
				ls := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if asJSON {
					for _, l := range ls {
						if !json.Valid([]byte(l)) {
							t.Fatalf("stdout line %q is not JSON", l)
						}
					}
				} else {
					ls = ls[1:] // the header
				}
				if len(ls) != 5 {
					t.Fatalf("%d events printed, want 5:\n%s", len(ls), out)
				}
				errLines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
				summary := fmt.Sprintf("agentbox: audit: %s: %d lines are not audit entries; run agentbox verify %s", p, len(tc.warns), p)
				if len(tc.warns) == 1 {
					summary = fmt.Sprintf("agentbox: audit: %s: 1 line is not an audit entry; run agentbox verify %s", p, p)
				}
				if len(errLines) != len(tc.warns)+1 || errLines[len(errLines)-1] != summary {
					t.Fatalf("stderr:\n%s", errOut)
				}
				for i, w := range tc.warns {
					if !strings.Contains(errLines[i], w) {
						t.Fatalf("stderr line %d %q lacks %q", i, errLines[i], w)
					}
				}
			})
		}
	}
}

// auditCLIError is an audit command that must fail with exit code and one
// line on stderr holding err, and print nothing on stdout.
type auditCLIError struct {
	name string
	args []string
	code int
	err  string
}

func checkAuditCLIErrors(t *testing.T, tests []auditCLIError) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := auditCLI(t, tc.args...)
			if code != tc.code || out != "" || !strings.Contains(errOut, tc.err) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d and %q", code, out, errOut, tc.code, tc.err)
			}
		})
	}
}

// TestEscapeOneRule: alert lines (escapeControls) and audit cells
// (auditCell) escape the same characters, the same way.
func TestEscapeOneRule(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain é", "plain é"},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"a\nb\tc", `a\x0ab\x09c`},
		{"a\x7fb\u009bc", `a\x7fb\x9bc`},
		{"moc.elgoog\u202e.evil", `moc.elgoog\u202e.evil`},
		{"x\u2066\u2069\u200e\u200f\u061cy", `x\u2066\u2069\u200e\u200f\u061cy`},
		{"x\u2028y\u2029z", `x\u2028y\u2029z`},
		{"bad\xffbyte", `bad\xffbyte`},
		{"kept \ufffd", "kept \ufffd"},
	} {
		if got := escapeControls(tc.in); got != tc.want {
			t.Errorf("escapeControls(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := auditCell(tc.in, 1000); got != tc.want {
			t.Errorf("auditCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Width counts characters, an escaped one as one.
	if got := auditCell("\u202eabc", 2); got != `\u202ea…` {
		t.Errorf("auditCell cut = %q", got)
	}
}
