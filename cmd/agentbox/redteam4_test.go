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

// TestRedteam4AuditBadLinesStayInert: lines that are no entries are named
// on stderr with the parser's reason; hostile keys and values in them
// (escape sequences in a duplicate key, a timestamp, a number) must reach
// the terminal escaped. A real entry beside them is printed (control).
func TestRedteam4AuditBadLinesStayInert(t *testing.T) {
	p := auditTestLog(t, auditSampleEvents(2))
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{
		`{"\u001b[2J":1,"\u001b[2J":2}`,
		`{"id":3,"hash":"x","prev_hash":"y","timestamp":"\u001b]0;pwned\u0007","event_type":"alert","allowed":true}`,
		`{"id":3,"hash":"x","prev_hash":"y","timestamp":"2026-01-01T00:00:00Z","event_type":"alert","allowed":true,"details":"\u001b[31m"}`,
		"{\"id\":3,\"hash\":\"\x1b[2J\",\"prev_hash\":\"y\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"event_type\":\"alert\",\"allowed\":true}",
		"\x1b[1A\x1b[2K\u202e not json at all",
	} {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	code, out, errOut := auditCLI(t, "audit", "--log", p)
	if code != exitFailure || !strings.Contains(out, "cmd-a") || !strings.Contains(out, "cmd-b") {
		t.Fatalf("control: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
		if strings.Contains(out, bad) || strings.Contains(errOut, bad) {
			t.Errorf("attack succeeded: %q reaches the terminal:\nstdout %q\nstderr %q", bad, out, errOut)
		}
	}
	code, out, errOut = auditCLI(t, "verify", p)
	if code != exitFailure || strings.Contains(out+errOut, "\x1b") {
		t.Errorf("verify: exit %d %q %q", code, out, errOut)
	}
}

// TestRedteam4ConcurrentRunsShareOneChain starts several "agentbox run"
// processes of one manifest at once, all appending to one audit log: the
// chain must stay linear and verify, with every run's start and exit.
func TestRedteam4ConcurrentRunsShareOneChain(t *testing.T) {
	state := runEnv(t)
	m := writeManifest(t, "name: crowd\n")
	const n = 4
	var ps []*cliProcess
	for range n {
		ps = append(ps, startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "sleep 0.3"))
	}
	for i, p := range ps {
		if code := p.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("run %d exited %d: %s", i, code, p.stderr.String())
		}
	}
	logPath := filepath.Join(state, "logs", "crowd.log")
	rep, err := audit.Verify(logPath, audit.VerifyOptions{})
	if err != nil || !rep.OK || rep.Signed != uint64(rep.Entries) {
		t.Fatalf("verify after %d concurrent runs: %+v %v", n, rep, err)
	}
	starts, _ := audit.Query(logPath, audit.Filter{Type: audit.AgentStart})
	exits, _ := audit.Query(logPath, audit.Filter{Type: audit.AgentExit})
	if len(starts) != n || len(exits) != n {
		t.Errorf("%d agent_start and %d agent_exit events, want %d each", len(starts), len(exits), n)
	}
	// Control: an edit of one entry is still found.
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, []byte(strings.Replace(string(b), `"allowed":true`, `"allowed":false`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if rep, err := audit.Verify(logPath, audit.VerifyOptions{}); err != nil || rep.OK {
		t.Errorf("control: an edited entry verified: %+v %v", rep, err)
	}
}
