//go:build linux

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/supervise"
)

// Red-team tests of the operator-side guarantees of the CLI (redteam4):
// the registry and kill switch seen from another user and from planted
// records, kill racing a start. Each attack must fail; a control beside it
// must succeed.

// rt4Sleeper starts an unrelated process (not an agent) and returns its pid
// and start time.
func rt4Sleeper(t *testing.T) (*exec.Cmd, uint64) {
	t.Helper()
	cmd := exec.Command("sleep", "120")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	st, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, st
}

func rt4Alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil && !zombie(pid)
}

// TestRedteam4StaleAndRecycledRecords plants registry records whose pids
// name processes that are not what the record says (a pid recycled by an
// unrelated process): ps must drop them and kill must not reach the process.
func TestRedteam4StaleAndRecycledRecords(t *testing.T) {
	state := runEnv(t)
	reg, err := supervise.OpenRegistry(state)
	if err != nil {
		t.Fatal(err)
	}
	victim, start := rt4Sleeper(t)
	pid := victim.Process.Pid
	recs := []supervise.Record{
		// The pid was an agent's once; a later process reuses it.
		{ID: "0000aaaa", Name: "recycled", Pid: pid, PidStart: start - 1, InitPid: pid, InitStart: start + 1, Started: time.Now()},
		// The run is gone, the init's pid is reused.
		{ID: "0000bbbb", Name: "recycled-init", Pid: 999999, PidStart: 1, InitPid: pid, InitStart: start + 7, Started: time.Now()},
	}
	for _, r := range recs {
		if err := reg.Register(r); err != nil {
			t.Fatal(err)
		}
	}
	if list := agentsRunning(t); len(list) != 0 {
		t.Errorf("ps lists records of recycled pids: %+v", list)
	}
	for _, r := range recs {
		if _, err := os.Stat(filepath.Join(state, "agents", r.ID+".json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale record %s still on disk (%v)", r.ID, err)
		}
		// Put it back and kill it by name and by ID directly.
		if err := reg.Register(r); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{r.Name, r.ID} {
			if code, out, errOut := runCLI(t, "kill", key); code != exitFailure {
				t.Errorf("kill %s of a recycled pid: exit %d %q %q", key, code, out, errOut)
			}
		}
		if !rt4Alive(pid) {
			t.Fatalf("attack succeeded: kill through the record %+v ended the unrelated process %d", r, pid)
		}
	}
	// Control: a real agent is listed and killed by name.
	m := writeManifest(t, "name: real-one\n")
	a := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "echo ready; sleep 60")
	a.waitOutput(t, "ready")
	waitAgents(t, 1)
	if code, out, errOut := runCLI(t, "kill", "real-one"); code != 0 {
		t.Fatalf("control: kill real-one: exit %d %q %q", code, out, errOut)
	}
	if code := a.wait(t, 15*time.Second); code != exitKilled {
		t.Errorf("control: the killed run exited %d", code)
	}
	if !rt4Alive(pid) {
		t.Error("the unrelated process died with the agent")
	}
}

// TestRedteam4KillRacingStart kills an agent by name as soon as it can be
// found, again and again while its run starts: every kill that reports
// success must leave the run exiting 137, no process of the agent, an
// intact audit log and an empty registry.
func TestRedteam4KillRacingStart(t *testing.T) {
	state := runEnv(t)
	m := writeManifest(t, "name: racer\n")
	for round := range 4 {
		a := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "sleep 60 & sleep 60 & wait")
		var rec supervise.Record
		deadline := time.Now().Add(20 * time.Second)
		for {
			code, out, errOut := runCLI(t, "kill", "--json", "racer")
			if code == 0 {
				var rep killReport
				if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Killed == nil {
					t.Fatalf("round %d: kill --json: %q %v", round, out, err)
				}
				rec = *rep.Killed
				break
			}
			if !strings.Contains(errOut, "no such running agent") {
				t.Fatalf("round %d: kill while starting: exit %d %q", round, code, errOut)
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the agent never showed up (run stderr %q)", round, a.stderr.String())
			}
		}
		if code := a.wait(t, 15*time.Second); code != exitKilled {
			t.Errorf("round %d: run exited %d after the kill, want 137; stderr %q", round, code, a.stderr.String())
		}
		if rt4Alive(rec.InitPid) {
			t.Errorf("round %d: the init %d outlived the kill", round, rec.InitPid)
		}
		if list := agentsRunning(t); len(list) != 0 {
			t.Errorf("round %d: registry after the kill: %+v", round, list)
		}
	}
	rep, err := audit.Verify(filepath.Join(state, "logs", "racer.log"), audit.VerifyOptions{})
	if err != nil || !rep.OK {
		t.Fatalf("audit log after the racing kills: %+v %v", rep, err)
	}
	killed, _ := audit.Query(filepath.Join(state, "logs", "racer.log"), audit.Filter{Type: audit.AgentKilled})
	if len(killed) != 4 {
		t.Errorf("%d agent_killed events, want 4", len(killed))
	}
}

// rt4OtherUser returns the unprivileged test user and a copy of the test
// binary it may execute. Root only.
func rt4OtherUser(t *testing.T) (string, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	name := "agentbox-ci"
	if _, err := user.Lookup(name); err != nil {
		t.Skipf("no user %s: %v", name, err)
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("no runuser")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "agentbox-rt4-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "agentbox")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return name, bin
}

// asUser runs the CLI as user with a clean environment plus env.
func asUser(t *testing.T, name, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	full := append([]string{"-u", name, "--", "env", "-i", "HOME=" + u.HomeDir, "PATH=/usr/bin:/bin", cliEnv + "=1"}, env...)
	full = append(append(full, bin), args...)
	cmd := exec.Command("runuser", full...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// TestRedteam4OtherUserCannotListOrKill runs ps and kill as another
// unprivileged user, with its own state directory and pointed at root's: it
// must neither see nor end root's agent, nor plant a record for it.
func TestRedteam4OtherUserCannotListOrKill(t *testing.T) {
	name, bin := rt4OtherUser(t)
	state := runEnv(t)
	m := writeManifest(t, "name: private\n")
	a := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "echo ready; sleep 60")
	a.waitOutput(t, "ready")
	rec := waitAgents(t, 1)[0]

	// Modes of what the registry and the audit key keep.
	for p, want := range map[string]os.FileMode{
		state:                          0o700,
		filepath.Join(state, "agents"): 0o700,
		filepath.Join(state, "agents", rec.ID+".json"): 0o600,
		filepath.Join(state, "audit", "key"):           0o600,
	} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}

	// Its own registry: nothing of root's.
	code, out, errOut := asUser(t, name, bin, nil, "ps", "--json")
	if code != 0 || strings.Contains(out, rec.ID) {
		t.Errorf("ps as %s: exit %d %q %q", name, code, out, errOut)
	}
	for _, key := range []string{"private", rec.ID} {
		if code, out, errOut := asUser(t, name, bin, nil, "kill", key); code == 0 {
			t.Errorf("attack succeeded: kill %s as %s: %q %q", key, name, out, errOut)
		}
	}
	// Root's state directory named outright.
	env := []string{"AGENTBOX_STATE_DIR=" + state}
	if code, out, errOut := asUser(t, name, bin, env, "ps", "--json"); code == 0 || strings.Contains(out, rec.ID) {
		t.Errorf("attack succeeded: ps as %s on root's state: exit %d %q %q", name, code, out, errOut)
	}
	for _, key := range []string{"private", rec.ID} {
		if code, out, errOut := asUser(t, name, bin, env, "kill", key); code == 0 {
			t.Errorf("attack succeeded: kill %s as %s on root's state: %q %q", key, name, out, errOut)
		}
	}
	// Planting a record or a symbolic link in root's registry.
	plant := exec.Command("runuser", "-u", name, "--", "sh", "-c",
		"echo '{}' > "+filepath.Join(state, "agents", "0badf00d.json")+"; ln -s /etc/passwd "+filepath.Join(state, "agents", "0badf00d.kill"))
	if out, err := plant.CombinedOutput(); err == nil {
		t.Errorf("attack succeeded: %s wrote into root's registry: %s", name, out)
	}
	if !rt4Alive(rec.InitPid) {
		t.Fatal("root's agent died")
	}
	// Control: root kills it.
	if code, out, errOut := runCLI(t, "kill", "private"); code != 0 {
		t.Fatalf("control: kill as root: exit %d %q %q", code, out, errOut)
	}
	if code := a.wait(t, 15*time.Second); code != exitKilled {
		t.Errorf("control: the killed run exited %d", code)
	}
}
