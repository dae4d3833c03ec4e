package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRedteam61AuditLogForgedBySandboxStartedEarlier: round 50 found that
// any other sandbox of the user whose writable root holds a run's audit log
// could append a forged, correctly chained entry to it while the run held
// it open; the run then signed it and `agentbox verify` called the log
// intact. The fix records the log in internal/keptfiles (keptfiles.Log)
// when the run opens it, and every sandbox keeps the recorded files
// read-only. But a sandbox reads that record only when it starts: a
// sandbox that is already running when the agent's run starts (a coding
// agent's long `agentbox exec --write PROJECT` session, a dev server, a
// watch loop, or another agent's `run` whose writable root holds PROJECT)
// keeps its whole writable root writable, the new log included.
//
// Attack: start `agentbox exec --write PROJ -- sh -c 'wait; cat forged >>
// PROJ/logs/agent.log'` first, then `agentbox run` an agent whose manifest
// has audit.log_path: ../logs/agent.log (in PROJ, not in the agent's own
// writable roots, so run accepts it). The early sandbox reads the log's
// last entry (it can read the whole log: every event of the other agent),
// appends an entry chained to it (SHA-256 over the documented encoding, no
// key needed), the run chains its next entries after it and signs them at
// Close, and verify reports the log intact.
//
// Why it works: supervise/agent.go:prepare records the log with
// keptfiles.Record(keptfiles.Log, …) for "this run's and later" sandboxes
// only; the masks of a sandbox already running are fixed
// (manager.go/keptfiles are read at a sandbox's start), and
// supervise/auditlog.go's placement checks judge only the run's own
// writable roots and other users, not the writable roots of the user's
// sandboxes that are running (or the granted-writable-roots record).
// audit/witness.go accepts chained appends while a writer has the log open.
//
// Severity: high (a write that agentbox keeps from every sandbox: a
// sandboxed command forges an entry in another agent's tamper-evident log,
// a signed checkpoint covers it and verify passes; it also reads that
// agent's whole log). Found by red-team round 61. Fixed: every sandbox
// registers its writable roots as running (internal/liveroots) before it
// reads the kept files, and a run, having recorded its log and manifest,
// refuses one inside a running sandbox's roots before it opens the log
// (supervise: refuseRunningWriters, RunningWriterError).
func TestRedteam61AuditLogForgedBySandboxStartedEarlier(t *testing.T) {
	runEnv(t)
	proj := publicTempDir(t)
	for _, d := range []string{"manifests", "logs"} {
		if err := os.Mkdir(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(proj, "logs", "agent.log")
	gate := filepath.Join(proj, "gate") // lets the agent end
	goFile := filepath.Join(proj, "go") // lets the early sandbox forge
	okFile := filepath.Join(proj, "ok.txt")
	manifest := filepath.Join(proj, "manifests", "agent.yaml")
	src := "name: rt61b-agent\naudit:\n  log_level: standard\n  log_path: ../logs/agent.log\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}

	// The sandbox started first: a command with the project writable. It
	// writes an ordinary file (control), then waits (at most 60 s) for the
	// go file, and appends to the log if there is one.
	early := startCLI(t, "exec", "--write", proj, "--", "/bin/sh", "-c",
		"echo rt61b-ok > "+okFile+"; echo rt61b-early-ready; i=0; while [ ! -e "+goFile+" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; "+
			"[ -e "+logPath+" ] && echo forged >> "+logPath+" && echo rt61b-appended; echo rt61b-early-end")
	early.waitOutput(t, "rt61b-early-ready")

	// The attack: an agent's run whose log that sandbox may write.
	// Refused before the log is opened, naming it and the root.
	code, out, errOut := runCLI(t, "run", "--manifest", manifest, "--approve", "--", "/bin/sh", "-c", "echo rt61b-agent-done")
	if code != 125 || strings.Contains(out, "rt61b-agent-done") || !strings.Contains(errOut, "a sandbox running now may write") || !strings.Contains(errOut, logPath) {
		t.Errorf("a run whose audit log %s a sandbox started before it (exec --write %s) may write went ahead: exit %d, stdout %q, stderr %q",
			logPath, proj, code, out, errOut)
	}
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c := early.wait(t, 60*time.Second); c != 0 || !strings.Contains(early.stdout.String(), "rt61b-early-end") {
		t.Fatalf("early exec: exit %d, stdout %q, stderr %q", c, early.stdout.String(), early.stderr.String())
	}
	if b, err := os.ReadFile(okFile); err != nil || string(b) != "rt61b-ok\n" {
		t.Fatalf("control: the early sandbox did not write %s (%q, %v)", okFile, b, err)
	}
	if strings.Contains(early.stdout.String(), "rt61b-appended") {
		t.Errorf("the early sandbox appended to %s: %q", logPath, early.stdout.String())
	}

	// Control: with that sandbox gone, the run goes, a sandbox started
	// meanwhile cannot open the log for writing (round 50's fix), and the
	// log verifies.
	agent := startCLI(t, "run", "--manifest", manifest, "--approve", "--", "/bin/sh", "-c",
		"i=0; while [ ! -e "+gate+" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; echo rt61b-agent-done")
	rt50bWaitLastLine(t, logPath, agent)
	lcode, lout, lerr := runCLI(t, "exec", "--write", proj, "--", "/bin/sh", "-c",
		"( : >> "+logPath+" ) 2>/dev/null && echo rt61b-late-opened; echo rt61b-late-end")
	if lcode != 0 || !strings.Contains(lout, "rt61b-late-end") {
		t.Fatalf("late exec: exit %d, stdout %q, stderr %q", lcode, lout, lerr)
	}
	if strings.Contains(lout, "rt61b-late-opened") {
		t.Fatalf("control: a sandbox started during the run could open its audit log for writing (round 50's fix is off): %q", lout)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c := agent.wait(t, 60*time.Second); c != 0 || !strings.Contains(agent.stdout.String(), "rt61b-agent-done") {
		t.Fatalf("agent run: exit %d, stdout %q, stderr %q", c, agent.stdout.String(), agent.stderr.String())
	}
	vcode, vout, verr := runCLI(t, "verify", logPath)
	if vcode != 0 || !strings.Contains(vout, "intact") {
		t.Errorf("control: the run's own log does not verify: exit %d, %q %q", vcode, vout, verr)
	}
}
