//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
)

// A log moved away by hand makes run refuse to start a new one at its path
// (exit 125, saying how to rotate), so that the moved log still verifies;
// audit rotate moves it so that both the old and the new log verify.
func TestAuditRotateThenRun(t *testing.T) {
	runEnv(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "a.log")
	m := writeManifest(t, fmt.Sprintf("name: rot\naudit: {log_path: %s}\n", logPath))
	runOK := func() {
		t.Helper()
		if code, _, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/true"); code != 0 {
			t.Fatalf("run: exit %d\n%s", code, errOut)
		}
	}
	verifyOK := func(p, want string) {
		t.Helper()
		code, out, errOut := runCLI(t, "verify", p)
		if code != 0 || !strings.Contains(out, want) || errOut != "" {
			t.Fatalf("verify %s: exit %d\n%s%s", p, code, out, errOut)
		}
	}
	moveLog := func(from, to string) {
		t.Helper()
		for _, s := range []string{"", ".checkpoints"} {
			if err := os.Rename(from+s, to+s); err != nil {
				t.Fatal(err)
			}
		}
	}
	runOK()
	runOK()
	byHand := filepath.Join(dir, "by-hand.log")
	moveLog(logPath, byHand)
	code, _, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/true")
	if code != exitInternal || !strings.HasPrefix(errOut, "agentbox: the audit log "+logPath+" has 0 entries but") ||
		!strings.Contains(errOut, "agentbox audit rotate --log "+logPath) || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("run after the log was moved by hand: exit %d, stderr %q; want 125 and how to rotate", code, errOut)
	}
	if _, err := os.Lstat(logPath); err == nil {
		t.Fatal("the refused run created the log")
	}
	verifyOK(byHand, "✅ intact, entries 1–4")

	moveLog(byHand, logPath)
	rotated := filepath.Join(dir, "a.1.log")
	code, out, errOut := runCLI(t, "audit", "rotate", "--log", logPath, "--to", rotated)
	if code != 0 || !strings.HasPrefix(out, "✅ rotated "+logPath+" (entries 1–4, signed) to "+rotated) {
		t.Fatalf("rotate: exit %d\n%s%s", code, out, errOut)
	}
	runOK()
	verifyOK(rotated, "✅ intact, entries 1–4")
	verifyOK(logPath, "✅ intact, entries 1–2")
	verifyOK(logPath, "ℹ️  an earlier log here (entries 1–4")

	// Deleted without rotating: still refused.
	if err := os.Remove(logPath); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/true"); code != exitInternal {
		t.Fatalf("run after the new log was deleted: exit %d, %s", code, errOut)
	}
}

func TestAuditRotateErrors(t *testing.T) {
	p := auditTestLog(t, auditQueryEvents())
	edited := filepath.Join(filepath.Dir(p), "edited.log")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, []byte(strings.Replace(string(b), "evil.example", "good.example", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []auditCLIError{
		{"no --log", []string{"audit", "rotate"}, 125, "--log FILE is required"},
		{"argument", []string{"audit", "rotate", "--log", p, "x"}, 125, "takes no arguments"},
		{"missing log", []string{"audit", "rotate", "--log", p + ".nope"}, 125, "no such audit log; check the --log path"},
		{"not intact", []string{"audit", "rotate", "--log", edited}, 1, "is edited at entry 2; a damaged log stays where it is: run agentbox verify " + edited},
		{"destination exists", []string{"audit", "rotate", "--log", p, "--to", edited}, 1, "rotate to a new name"},
	}
	checkAuditCLIErrors(t, tests)
}

// A running agent's writer would go on appending to the moved file.
func TestAuditRotateRefusesALogInUse(t *testing.T) {
	runEnv(t)
	logPath := filepath.Join(t.TempDir(), "busy.log")
	m := writeManifest(t, fmt.Sprintf("name: busy\naudit: {log_path: %s}\n", logPath))
	a := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "sleep 30 & echo ready; wait")
	a.waitOutput(t, "ready")
	rec := waitAgents(t, 1)[0]
	code, out, errOut := runCLI(t, "audit", "rotate", "--log", logPath)
	if code != exitFailure || out != "" || !strings.Contains(errOut, "agent busy (id "+rec.ID+") is writing to "+logPath+"; rotate it after the agent exits") {
		t.Fatalf("rotate of a log in use: exit %d, %q %q", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "kill", rec.ID); code != 0 {
		t.Fatalf("kill: %d %s", code, errOut)
	}
	a.wait(t, 10*time.Second)
	if code, _, errOut := runCLI(t, "audit", "rotate", "--log", logPath); code != 0 {
		t.Fatalf("rotate after the agent exited: %d %s", code, errOut)
	}
}

// A program that holds the log open through the audit package, not an agent
// that run started, is a writer too: rotate refuses, in one line that says
// why and what to do, and rotates once the writer has closed the log.
func TestAuditRotateRefusesALogALibraryHoldsOpen(t *testing.T) {
	p := auditTestLog(t, auditQueryEvents())
	l, err := audit.Open(p, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	code, out, errOut := runCLI(t, "audit", "rotate", "--log", p)
	if code != exitFailure || out != "" || strings.Count(errOut, "\n") != 1 ||
		!strings.Contains(errOut, "audit rotate: audit: log in use: a writer has "+p+" open") ||
		!strings.Contains(errOut, "rotate it after the writer closes it") {
		t.Fatalf("rotate of a log a library holds open: exit %d, %q %q", code, out, errOut)
	}
	if rep, err := audit.Verify(p, audit.VerifyOptions{}); err != nil || !rep.OK {
		t.Fatalf("the log after the refusal: %+v %v", rep, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "audit", "rotate", "--log", p); code != 0 {
		t.Fatalf("rotate after the writer closed: %d %s", code, errOut)
	}
}
