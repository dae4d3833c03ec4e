//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/supervise"
)

// TestRedteam27StateDirParentRename: the agent's writable root holds
// agentbox's state directory (a manifest that may write the home, with the
// default state directory ~/.local/state/agentbox; here AGENTBOX_STATE_DIR
// points inside the writable root the same way). `run` masks the state
// directory itself (DenyRead), but the agent renames the state directory's
// PARENT-level name (the state directory sits directly in the writable root,
// so it renames the directory itself out from under the mask's path, then
// makes a new one in its place) and plants a registry of its own:
//   - a forged `ps` entry whose init_pid names a host process (the test's
//     victim `sleep`, pid and start time handed to the agent: a real attacker
//     plants records over a range of start times), so that `agentbox kill
//     NAME` SIGKILLs a host process;
//   - the real agent's record moved away, so `ps` no longer lists it;
//   - the signing key, moved with the renamed directory, readable by the agent.
//
// Severity: high if it works (kill switch turned against host processes,
// an agent hidden from ps, the audit key disclosed). A fix would need the
// state directory (and every directory above it inside a writable root)
// pinned against rename, or a run that refuses a writable root holding the
// state directory, as it refuses one holding the audit log.
func TestRedteam27StateDirParentRename(t *testing.T) {
	dir := publicTempDir(t)
	w := filepath.Join(dir, "w")
	if err := os.MkdirAll(w, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(w, 0o777)
	state := filepath.Join(w, "home", ".local", "state", "agentbox")
	t.Setenv(paths.EnvStateDir, state)
	// The state directory and its key exist before the run, as on a used machine.
	if code, _, errOut := runCLI(t, "ps"); code != 0 {
		t.Fatalf("ps: %d %s", code, errOut)
	}

	victim := exec.Command("sleep", "120")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	vstart := procStart(t, victim.Process.Pid)

	rec := fmt.Sprintf(`{"id":"deadbeef","name":"rt27-fake","manifest":"/x","pid":%d,"pid_start":%d,"init_pid":%d,"init_start":%d,"started":"2026-01-01T00:00:00Z","runtime":"native","memory":"cgroup"}`,
		victim.Process.Pid, vstart, victim.Process.Pid, vstart)
	script := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(script, []byte(`#!/bin/sh
W="$1"
echo control > "$W/control" && echo control-ok
mv "$W/home/.local" "$W/moved" 2>&1 && echo renamed
mv "$W/home" "$W/moved2" 2>&1 && echo renamed2
S="$W/home/.local/state/agentbox"
mkdir -p "$S/agents" && printf '%s\n' '`+rec+`' > "$S/agents/deadbeef.json" && echo planted
ls -la "$W/moved/state/agentbox" "$W/moved2/.local/state/agentbox" 2>&1
for k in "$W"/moved/state/agentbox/key "$W"/moved2/.local/state/agentbox/key; do [ -r "$k" ] && echo key-readable; done
echo ready
sleep 30
`), 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "logs", "a.log")
	m := writeManifest(t, fmt.Sprintf("name: rt27-state\npermissions: {filesystem: {write: [%q]}}\naudit: {log_path: %q}\n", w, logPath))
	p := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", script, w)
	p.waitOutput(t, "ready")
	out := p.stdout.String()
	t.Logf("agent output:\n%s\nstderr: %s", out, p.stderr.String())
	if !strings.Contains(out, "control-ok") {
		t.Fatalf("control: the agent could not write its writable root")
	}
	if strings.Contains(out, "key-readable") {
		t.Errorf("the agent reads agentbox's audit signing key after renaming the state directory")
	}

	// run lists the agent once agent_start is on disk, which may be after
	// the agent printed "ready": wait for it a while.
	var list []supervise.Record
	var real, fake bool
	for deadline := time.Now().Add(15 * time.Second); !real && time.Now().Before(deadline); {
		list = agentsRunning(t)
		for _, r := range list {
			if r.Name == "rt27-state" {
				real = true
			}
			if r.ID == "deadbeef" {
				fake = true
			}
		}
		if !real {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if !real {
		t.Errorf("the running agent is gone from ps: %+v", list)
	}
	if fake {
		t.Errorf("ps lists the agent's forged record: %+v", list)
	}
	code, kout, kerr := runCLI(t, "kill", "rt27-fake")
	t.Logf("kill rt27-fake: %d %s %s", code, kout, kerr)
	time.Sleep(100 * time.Millisecond)
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil || zombie(victim.Process.Pid) {
		t.Errorf("`agentbox kill rt27-fake` killed a host process (pid %d)", victim.Process.Pid)
	}
	code, kout, kerr = runCLI(t, "kill", "rt27-state")
	if code != 0 {
		t.Errorf("`agentbox kill rt27-state` (the real agent): exit %d %s %s", code, kout, kerr)
	}
	_ = p.cmd.Process.Kill()
}

func procStart(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var v uint64
	fmt.Sscan(f[19], &v)
	return v
}
