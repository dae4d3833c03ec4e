package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRedteam50AuditLogForgedByOtherSandbox: a run keeps its own agent away
// from its audit log (the log is denied, and a log inside the agent's
// writable root is refused), and round 48 made every sandbox of the user
// keep the manifests agentbox ran and its vault files out of reach
// (internal/keptfiles). The audit log at a manifest's audit.log_path is in
// neither record: to every other sandbox (`agentbox exec --write PROJECT`,
// what a coding agent runs all day, or another agent's run whose writable
// root holds it) it is an ordinary file. Such a command appends a forged
// entry, hash-chained to the log's last one (the chain needs no key: it
// is SHA-256 over a documented encoding), while the agent's run holds the
// log open. The run's writer takes the grown file for another writer's
// appends (audit/witness.go:changedUnder checks only that its own last
// line is still in place), chains its next entries after the forgery and
// signs a checkpoint over it at Close; `agentbox verify` then calls the
// tampered log "intact" without a warning.
//
// Attack: while the agent runs,
// exec --write PROJ -- sh -c 'cat PROJ/forged >> PROJ/logs/agent.log'
// with a chained {"event_type":"command_exec",...} line.
//
// Why it works: supervise/agent.go:prepare records the manifest
// (keptfiles.Policy) and the vault files (keptfiles.Secret) but not the
// audit log and its checkpoints, so manager.go keeps them from no other
// sandbox; audit accepts any chained append while a writer is open.
//
// Severity: high (a write the policy denies: a command in a sandbox
// forges an entry in another agent's tamper-evident log, which a signed
// checkpoint then covers and verify passes). Found by red-team round 50.
// Fixed: a run records its audit log (keptfiles.Log), and every sandbox of
// the user keeps the recorded logs read-only.
func TestRedteam50AuditLogForgedByOtherSandbox(t *testing.T) {
	runEnv(t)
	proj := publicTempDir(t)
	for _, d := range []string{"manifests", "logs"} {
		if err := os.Mkdir(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(proj, "logs", "agent.log")
	gate := filepath.Join(proj, "gate")
	manifest := filepath.Join(proj, "manifests", "agent.yaml")
	src := "name: rt50b-agent\naudit:\n  log_level: standard\n  log_path: ../logs/agent.log\n"
	if err := os.WriteFile(manifest, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// The agent waits (at most 30 s) for the gate, so that the forgery
	// lands while its run holds the log open.
	agent := startCLI(t, "run", "--manifest", manifest, "--approve", "--", "/bin/sh", "-c",
		"i=0; while [ ! -e "+gate+" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; echo rt50b-agent-done")
	last := rt50bWaitLastLine(t, logPath, agent)

	forged := rt50bForgedLine(t, last, "rt50b-forged-entry")
	forgedFile := filepath.Join(proj, "forged.jsonl")
	if err := os.WriteFile(forgedFile, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	// The other sandbox: a command with the project writable. Controls in
	// the same command: an ordinary file is written, and the manifest
	// (kept read-only in every sandbox since round 48) is not.
	okFile := filepath.Join(proj, "ok.txt")
	code, out, errOut := runCLI(t, "exec", "--write", proj, "--", "/bin/sh", "-c",
		"echo rt50b-ok > "+okFile+"; echo 'name: widened' > "+manifest+" 2>/dev/null && echo rt50b-manifest-written; cat "+forgedFile+" >> "+logPath+" && echo rt50b-appended; echo rt50b-end")
	if code != 0 || !strings.Contains(out, "rt50b-end") {
		t.Fatalf("exec: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if b, err := os.ReadFile(okFile); err != nil || string(b) != "rt50b-ok\n" {
		t.Fatalf("control: the sandboxed command did not write %s (%q, %v); stderr %q", okFile, b, err, errOut)
	}
	if strings.Contains(out, "rt50b-manifest-written") {
		t.Fatalf("control: the manifest was writable in the other sandbox (round 48's protection is off): %q", out)
	}
	if b, _ := os.ReadFile(manifest); string(b) != src {
		t.Fatalf("control: the manifest changed: %q", b)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if c := agent.wait(t, 60*time.Second); c != 0 || !strings.Contains(agent.stdout.String(), "rt50b-agent-done") {
		t.Fatalf("agent run: exit %d, stdout %q, stderr %q", c, agent.stdout.String(), agent.stderr.String())
	}

	logData, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	appended := strings.Contains(out, "rt50b-appended") && bytes.Contains(logData, bytes.TrimSuffix(forged, []byte("\n")))
	t.Logf("log:\n%s", logData)
	vcode, vout, verr := runCLI(t, "verify", logPath)
	t.Logf("exec stdout %q stderr %q\nverify: exit %d, stdout %q, stderr %q", out, errOut, vcode, vout, verr)
	if appended && vcode == 0 && strings.Contains(vout, "intact") && !strings.Contains(vout, "not signed") && !strings.Contains(verr, "⚠") {
		t.Errorf("a command in another sandbox (exec --write %s) appended a forged entry to the running agent's audit log %s; the run signed it and verify reports %q", proj, logPath, strings.TrimSpace(vout))
	} else if appended {
		t.Errorf("a command in another sandbox appended a forged entry to the running agent's audit log %s (verify: exit %d, %q %q)", logPath, vcode, vout, verr)
	}
	// Control: the run's own log is whole and verifies.
	if vcode != 0 || !strings.Contains(vout, "intact") || !bytes.Contains(logData, []byte(`"agent_exit"`)) {
		t.Errorf("the run's own log does not verify: exit %d, %q %q", vcode, vout, verr)
	}
}

// rt50bWaitLastLine waits until the log at p holds a complete entry and
// returns its last line.
func rt50bWaitLastLine(t *testing.T, p string, agent *cliProcess) []byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(p); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
			last := lines[len(lines)-1]
			if bytes.Contains(last, []byte(`"agent_start"`)) {
				return last
			}
		}
		select {
		case <-agent.done:
			t.Fatalf("agent run ended early: stdout %q, stderr %q", agent.stdout.String(), agent.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no agent_start in %s; agent stderr %q", p, agent.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rt50bForgedLine makes an entry chained to last, as audit/doc.go
// documents the encoding: SHA-256 of "agentbox-audit-v1\x00" and the
// canonical encoding of the entry without "hash".
func rt50bForgedLine(t *testing.T, last []byte, resource string) []byte {
	t.Helper()
	var prev struct {
		ID        uint64 `json:"id"`
		Hash      string `json:"hash"`
		AgentID   string `json:"agent_id"`
		AgentName string `json:"agent_name"`
	}
	if err := json.Unmarshal(last, &prev); err != nil || prev.Hash == "" {
		t.Fatalf("last entry %q: %v", last, err)
	}
	id := strconv.FormatUint(prev.ID+1, 10)
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	strs := map[string]string{
		"prev_hash": prev.Hash, "timestamp": ts, "agent_id": prev.AgentID, "agent_name": prev.AgentName,
		"event_type": "command_exec", "resource": resource, "rule": "allowed", "reason": "forged by another sandbox",
	}
	keys := []string{"id", "allowed"}
	for k := range strs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf := []byte("agentbox-audit-v1\x00o")
	buf = binary.AppendUvarint(buf, uint64(len(keys)))
	for _, k := range keys {
		buf = binary.AppendUvarint(buf, uint64(len(k)))
		buf = append(buf, k...)
		switch k {
		case "id":
			buf = append(buf, 'd')
			buf = binary.AppendUvarint(buf, uint64(len(id)))
			buf = append(buf, id...)
		case "allowed":
			buf = append(buf, 't')
		default:
			buf = append(buf, 's')
			buf = binary.AppendUvarint(buf, uint64(len(strs[k])))
			buf = append(buf, strs[k]...)
		}
	}
	sum := sha256.Sum256(buf)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	line := `{"id":` + id + `,"hash":"` + hex.EncodeToString(sum[:]) + `","prev_hash":` + q(prev.Hash) + `,"timestamp":` + q(ts) +
		`,"agent_id":` + q(prev.AgentID) + `,"agent_name":` + q(prev.AgentName) + `,"event_type":"command_exec","allowed":true,"resource":` +
		q(resource) + `,"rule":"allowed","reason":"forged by another sandbox"}` + "\n"
	return []byte(line)
}
