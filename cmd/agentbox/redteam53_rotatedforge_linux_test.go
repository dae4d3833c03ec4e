package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRedteam53RotatedAuditLogForgedByOtherSandbox: round 50's fix keeps
// a run's audit log read-only in every later sandbox of the user, by
// recording its path (keptfiles.Log). `agentbox audit rotate` then moves
// the log, its checkpoints and the state directory's copy to
// FILE.YYYYMMDDTHHMMSSZ (or --to NEWFILE): the history of every earlier
// run now lives under a name no record holds, an ordinary file to every
// sandbox with its directory writable (`agentbox exec --write PROJ`). A
// command there appends an entry chained to the rotated log's last one
// (the chain needs no key), and verify of the rotated log still reports
// it intact.
//
// Attack: after a run and `agentbox audit rotate --log PROJ/logs/agent.log
// --to PROJ/logs/agent.log.old`,
// exec --write PROJ -- sh -c 'cat forged >> PROJ/logs/agent.log.old'.
//
// Why it works: cmd/agentbox/audit_rotate.go / audit.Rotate move the log
// to a new name without recording it (keptfiles.Record(keptfiles.Log,
// to)), and supervise/agent.go:prepare records only a.logPath;
// manager.go:spec keeps only recorded paths read-only.
//
// Verify then says "✅ intact, entries 1–3, chain unbroken, checkpoint 1
// signed (covers entries 1–2; 3–3 are not signed yet)" and exits 0,
// though the rotation signed the chain closed at entry 2 and no writer
// may ever add to a rotated log: "not signed yet" is what a live log's
// tail looks like.
//
// Severity: high (a write the policy denies: a sandbox forges an entry in
// a run's tamper-evident log, which verify calls intact with exit 0).
// Found by red-team round 53.
// Fixed: audit rotate records the rotated log (keptfiles.Log), so later
// sandboxes keep it read-only, and verify reports entries past the signed
// close of a rotation as added after it (audit/verify.go).
func TestRedteam53RotatedAuditLogForgedByOtherSandbox(t *testing.T) {
	runEnv(t)
	proj := publicTempDir(t)
	for _, d := range []string{"manifests", "logs"} {
		if err := os.Mkdir(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(proj, "logs", "agent.log")
	rotated := logPath + ".old"
	manifest := filepath.Join(proj, "manifests", "agent.yaml")
	src := "name: rt53b-rot\naudit:\n  log_level: standard\n  log_path: ../logs/agent.log\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := startCLI(t, "run", "--manifest", manifest, "--approve", "--", "/bin/sh", "-c", "echo rt53b-agent-done")
	if c := agent.wait(t, 60*time.Second); c != 0 || !strings.Contains(agent.stdout.String(), "rt53b-agent-done") {
		t.Fatalf("agent run: exit %d, stdout %q, stderr %q", c, agent.stdout.String(), agent.stderr.String())
	}
	code, out, errOut := runCLI(t, "audit", "rotate", "--log", logPath, "--to", rotated)
	if code != 0 {
		t.Fatalf("rotate: exit %d, %q %q", code, out, errOut)
	}
	if vcode, vout, verr := runCLI(t, "verify", rotated); vcode != 0 || !strings.Contains(vout, "intact") {
		t.Fatalf("premise: the rotated log does not verify before the attack: exit %d, %q %q", vcode, vout, verr)
	}
	// A second run starts the new log at the old name: recorded, read-only.
	agent = startCLI(t, "run", "--manifest", manifest, "--approve", "--", "/bin/sh", "-c", "echo rt53b-agent-done")
	if c := agent.wait(t, 60*time.Second); c != 0 {
		t.Fatalf("second run: exit %d, stderr %q", c, agent.stderr.String())
	}
	b, err := os.ReadFile(rotated)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	forged := rt50bForgedLine(t, lines[len(lines)-1], "rt53b-forged-in-rotated")
	forgedFile := filepath.Join(proj, "forged.jsonl")
	if err := os.WriteFile(forgedFile, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	okFile := filepath.Join(proj, "ok.txt")
	code, out, errOut = runCLI(t, "exec", "--write", proj, "--", "/bin/sh", "-c",
		"echo rt53b-ok > "+okFile+"; cat "+forgedFile+" >> "+logPath+" 2>/dev/null && echo rt53b-current-appended; cat "+forgedFile+" >> "+rotated+" && echo rt53b-appended; echo rt53b-end")
	if code != 0 || !strings.Contains(out, "rt53b-end") {
		t.Fatalf("exec: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if b, err := os.ReadFile(okFile); err != nil || string(b) != "rt53b-ok\n" {
		t.Fatalf("control: the sandboxed command did not write %s (%q, %v)", okFile, b, err)
	}
	if strings.Contains(out, "rt53b-current-appended") {
		t.Fatalf("control: the current log was writable (round 50's fix is off): %q", out)
	}
	after, _ := os.ReadFile(rotated)
	appended := strings.Contains(out, "rt53b-appended") && bytes.Contains(after, bytes.TrimSuffix(forged, []byte("\n")))
	vcode, vout, verr := runCLI(t, "verify", rotated)
	t.Logf("exec %q %q\nverify rotated: exit %d, %q %q", out, errOut, vcode, vout, verr)
	switch {
	case appended && vcode == 0:
		t.Errorf("a sandbox appended a forged entry to the rotated audit log %s, closed and signed by the rotation, and verify exits 0: %q", rotated, strings.TrimSpace(vout))
	case appended:
		t.Errorf("a sandbox appended a forged entry to the rotated audit log %s (verify caught it: exit %d, %q %q)", rotated, vcode, vout, verr)
	}
	if vcode, vout, verr := runCLI(t, "verify", logPath); vcode != 0 || !strings.Contains(vout, "intact") {
		t.Errorf("control: the current log does not verify: exit %d, %q %q", vcode, vout, verr)
	}
}
