//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/internal/nomount"
	"github.com/agentbox-dev/agentbox/internal/paths"
	"github.com/agentbox-dev/agentbox/internal/ptytest"
	"github.com/agentbox-dev/agentbox/internal/syncbuf"
	"github.com/agentbox-dev/agentbox/supervise"
)

// cliEnv makes the test binary behave as the agentbox CLI, so that tests
// can run "agentbox run" as a process of its own (to signal it, give it a
// terminal, or SIGKILL it).
const cliEnv = "AGENTBOX_TEST_AS_CLI"

func TestMain(m *testing.M) {
	switch os.Getenv(cliEnv) {
	case "1":
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	case cliNoUserns:
		// As on a machine without user namespaces (see TestExecDegraded).
		if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	case cliNoMount:
		// As on a machine whose user namespaces grant no capability.
		if err := nomount.Install(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runEnv is one test's state directory, in the environment of in-process
// runs and of CLI processes.
func runEnv(t *testing.T) string {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	t.Setenv(paths.EnvStateDir, state)
	return state
}

// cliProcess starts the CLI as a process with args; its output is captured.
type cliProcess struct {
	cmd            *exec.Cmd
	stdout, stderr *syncbuf.Buffer
	done           chan struct{}
	err            error
}

func startCLI(t *testing.T, args ...string) *cliProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &cliProcess{cmd: exec.Command(exe, args...), stdout: &syncbuf.Buffer{}, stderr: &syncbuf.Buffer{}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), cliEnv+"=1")
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// wait returns the CLI's exit status.
func (p *cliProcess) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(within):
		t.Fatalf("agentbox run still running after %v\nstdout %q\nstderr %q", within, p.stdout.String(), p.stderr.String())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return 0
}

func (p *cliProcess) waitOutput(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(p.stdout.String(), s) {
		select {
		case <-p.done:
			t.Fatalf("agentbox run exited before printing %q\nstdout %q\nstderr %q", s, p.stdout.String(), p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("output %q never showed %q (stderr %q)", p.stdout.String(), s, p.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// agentsRunning lists the registry through "agentbox ps --json".
func agentsRunning(t *testing.T) []supervise.Record {
	t.Helper()
	code, out, errOut := runCLI(t, "ps", "--json")
	if code != 0 {
		t.Fatalf("ps --json: exit %d, %s", code, errOut)
	}
	var list []supervise.Record
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("ps --json: %v\n%s", err, out)
	}
	return list
}

// waitAgents waits until n agents are registered.
func waitAgents(t *testing.T, n int) []supervise.Record {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		list := agentsRunning(t)
		if len(list) >= n {
			return list
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d agents registered, want %d", len(list), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// nsProcs lists the host pids of the live processes in pid namespace ns
// (a zombie has exited: it runs nothing and holds no memory).
func nsProcs(t *testing.T, ns string) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err == nil && l == ns && !zombie(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // gone
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X'
}

func TestRunExitStatusAndMessages(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: cli-agent\n")
	tests := []struct {
		name    string
		args    []string
		want    int
		stderrs []string // regular expressions
	}{
		{"ok", []string{"--manifest", m, "--", "/bin/sh", "-c", "exit 0"}, 0, []string{
			`(?m)^🚀 Agent cli-agent started \(id [0-9a-f]{8}\): runtime native · memory 2048 MiB via (cgroup|rlimit\+monitor) · audit .*/state/logs/cli-agent\.log$`,
			`(?m)^✅ Agent cli-agent exited code 0 in \d+\.\ds$`}},
		{"own status", []string{"--manifest", m, "/bin/sh", "-c", "exit 3"}, 3, []string{`(?m)^⚠️  Agent cli-agent exited code 3 in \d+\.\ds$`}},
		{"signal", []string{"--manifest", m, "--approve", "--", "/bin/sh", "-c", "kill -TERM $$"}, 143, []string{`exited code 143`}},
		{"no program", []string{"--manifest", m}, exitInternal, []string{`needs the agent's program`}},
		{"no manifest", []string{"--", "/bin/true"}, exitInternal, []string{`needs --manifest`}},
		{"missing manifest", []string{"--manifest", m + ".nope", "--", "/bin/true"}, exitInternal, []string{`no such file`}},
		{"missing program", []string{"--manifest", m, "--", "/nonexistent/agent"}, 127, []string{`/nonexistent/agent`}},
		{"forbidden program", []string{"--manifest", m, "--approve", "--", "/bin/sh", "-c", "rm -rf / --no-preserve-root"}, exitRefused, []string{`forbidden`}},
		{"escalated without approval", []string{"--manifest", m, "--", "/bin/sh", "-c", "kill -9 1"}, exitRefused, []string{`--approve`}},
		{"bad grace", []string{"--manifest", m, "--grace", "0s", "--", "/bin/true"}, exitInternal, []string{`--grace`}},
		{"unenforced limits", []string{"--manifest", writeManifest(t, "name: budget\nlimits: {max_tokens: 5, max_requests: 9}\n"), "--", "/bin/true"}, 0, []string{
			`(?m)\A⚠️  Agent budget: not enforced yet: limits.max_tokens \(5\), limits.max_requests \(9\) \(carried into the run and logged\)\n🚀 `}},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) {
			code, _, errOut := runCLI(t, append([]string{"run"}, tt.args...)...)
			if code != tt.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.want, errOut)
			}
			for _, re := range tt.stderrs {
				if !regexp.MustCompile(re).MatchString(errOut) {
					t.Errorf("stderr lacks %s:\n%s", re, errOut)
				}
			}
		})
	}
}

func TestRunRefusesBadManifests(t *testing.T) {
	runEnv(t)
	bad := writeManifest(t, "name: Bad\nlimits: {max_duration: 0s}\n")
	code, _, errOut := runCLI(t, "run", "--manifest", bad, "--", "/bin/true")
	if code != exitInternal || !strings.Contains(errOut, bad+":1:7: ") || !strings.Contains(errOut, bad+":2:24: ") {
		t.Errorf("invalid manifest: exit %d, stderr:\n%s", code, errOut)
	}
	gv := writeManifest(t, "name: gv\nruntime: gvisor\n")
	code, out, errOut := runCLI(t, "run", "--manifest", gv, "--", "/bin/true")
	if code != exitInternal || !strings.Contains(errOut, `runtime "gvisor" is not available`) || out != "" {
		t.Errorf("gvisor runtime: exit %d, stderr:\n%s", code, errOut)
	}
	if list := agentsRunning(t); len(list) != 0 {
		t.Errorf("refused runs left registry entries: %+v", list)
	}
}

// TestRunSeedDemo is the seed's demo, as written: ticks, then the duration
// limit kills the agent after 5 s.
func TestRunSeedDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 5 s")
	}
	if runRaceEnabled {
		t.Skip("the sandbox's init is this test binary; built with the race detector it cannot live under the manifest's 64 MiB RLIMIT_DATA")
	}
	runEnv(t)
	// A copy, so that the audit log lands in the test's directory. Under
	// /var/tmp: the agent's own /tmp is private.
	dir := publicTempDir(t)
	for _, f := range []string{"timeout-test.yaml", "timeout-test.sh"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "manifests", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCLI(t, "run", "--manifest", filepath.Join(dir, "timeout-test.yaml"), "--", "bash", filepath.Join(dir, "timeout-test.sh"))
	if code != exitKilled {
		t.Fatalf("exit %d, want 137\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// The sixth tick comes 5 s after the script's start, a few ms after the
	// limit's timer started: on a loaded machine the kill can come after it.
	if five := "tick 1\ntick 2\ntick 3\ntick 4\ntick 5\n"; out != five && out != five+"tick 6\n" {
		t.Errorf("stdout:\n%s", out)
	}
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	want := []string{"🛑 Killing agent timeout-test: duration limit exceeded: 5s", "⚠️  Agent timeout-test exited code 137 in 5.0s"}
	if len(lines) < 2 || lines[len(lines)-2] != want[0] || lines[len(lines)-1] != want[1] {
		t.Errorf("stderr ends with %q, want %q", lines, want)
	}
	logPath := filepath.Join(dir, "logs", "timeout-test-audit.log")
	rep, err := audit.Verify(logPath, audit.VerifyOptions{})
	if err != nil || !rep.OK {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	evs, err := audit.Query(logPath, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range evs {
		types = append(types, e.EventType)
	}
	wantTypes := "agent_start limit_breached alert agent_killed agent_exit"
	if strings.Join(types, " ") != wantTypes {
		t.Errorf("events %q, want %s", types, wantTypes)
	}
}

func publicTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "agentbox-run-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRunTerminal(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: tty\n")
	master, slave := ptytest.Open(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, "run", "--manifest", m, "--", "/bin/sh", "-c",
		`if [ -t 0 ] && [ -t 1 ] && [ -t 2 ]; then echo "TTY yes $(stty size)"; else echo TTY no; fi`)
	c.Env = append(os.Environ(), cliEnv+"=1")
	c.Stdin, c.Stdout, c.Stderr = slave, slave, slave
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 33, Col: 77}); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(master)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var got []string
	deadline := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case l, ok := <-lines:
			if !ok {
				done = true
				break
			}
			got = append(got, strings.TrimRight(l, "\r"))
			if strings.HasPrefix(l, "TTY ") {
				done = true
			}
		case <-deadline:
			t.Fatalf("no answer from the agent; got %q", got)
		}
	}
	if err := c.Wait(); err != nil {
		t.Errorf("agentbox run: %v (output %q)", err, got)
	}
	found := false
	for _, l := range got {
		if l == "TTY yes 33 77" {
			found = true
		}
	}
	if !found {
		t.Errorf("the agent did not get the terminal: %q", got)
	}
}

func TestRunForwardsSignals(t *testing.T) {
	runEnv(t)
	m := writeManifest(t, "name: sig\n")
	p := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", `trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.05; done`)
	p.waitOutput(t, "ready")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 15*time.Second); code != 7 || !strings.Contains(p.stdout.String(), "got TERM") {
		t.Errorf("exit %d stdout %q, want 7 from the agent's trap", code, p.stdout.String())
	}

	// An agent that ignores SIGTERM is killed after --grace.
	p = startCLI(t, "run", "--manifest", m, "--grace", "300ms", "--", "/bin/sh", "-c", `trap '' TERM; echo ready; sleep 30`)
	p.waitOutput(t, "ready")
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code := p.wait(t, 15*time.Second)
	if took := time.Since(sent); code != exitKilled || took < 300*time.Millisecond {
		t.Errorf("exit %d after %v, want 137 after the 300ms grace", code, took)
	}
	if !strings.Contains(p.stderr.String(), "🛑 Killing agent sig: still running 300ms after SIGTERM\n") {
		t.Errorf("stderr:\n%s", p.stderr.String())
	}
}

func TestPsAndKill(t *testing.T) {
	state := runEnv(t)
	m := writeManifest(t, "name: worker\n")
	code, out, _ := runCLI(t, "ps")
	if code != 0 || out != "no running agents\n" {
		t.Errorf("ps with nothing running: exit %d %q", code, out)
	}
	a := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "sleep 30 & echo ready; wait")
	a.waitOutput(t, "ready")
	list := waitAgents(t, 1)
	rec := list[0]
	if rec.Name != "worker" || rec.Pid != a.cmd.Process.Pid || rec.InitPid == 0 || rec.Manifest != m {
		t.Fatalf("ps --json: %+v", rec)
	}
	code, out, _ = runCLI(t, "ps")
	if code != 0 || !regexp.MustCompile(`(?m)^ID\s+NAME\s+PID\s+UPTIME\s+MEMORY\s+MANIFEST\n`+rec.ID+`\s+worker\s+`+strconv.Itoa(rec.Pid)+`\s+`).MatchString(out) {
		t.Errorf("ps:\n%s", out)
	}

	// A second agent of the same name makes the name ambiguous.
	b := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "sleep 30 & echo ready; wait")
	b.waitOutput(t, "ready")
	list = waitAgents(t, 2)
	code, _, errOut := runCLI(t, "kill", "worker")
	if code != exitFailure || !strings.Contains(errOut, `2 running agents are named "worker"`) ||
		!strings.Contains(errOut, list[0].ID) || !strings.Contains(errOut, list[1].ID) {
		t.Fatalf("kill of an ambiguous name: exit %d\n%s", code, errOut)
	}
	code, out, _ = runCLI(t, "kill", "--json", "worker")
	var amb killReport
	if err := json.Unmarshal([]byte(out), &amb); code != exitFailure || err != nil || len(amb.Matches) != 2 || amb.Killed != nil {
		t.Fatalf("kill --json of an ambiguous name: exit %d %v\n%s", code, err, out)
	}

	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", rec.InitPid))
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "kill", rec.ID)
	if code != 0 || !regexp.MustCompile(`^🛑 Killed agent worker \(`+rec.ID+`\): process tree gone in `).MatchString(out) {
		t.Fatalf("kill %s: exit %d %q %q", rec.ID, code, out, errOut)
	}
	if left := nsProcs(t, ns); len(left) != 0 {
		t.Errorf("processes %v outlived the kill", left)
	}
	if code := a.wait(t, 15*time.Second); code != exitKilled {
		t.Errorf("the killed run exited %d, want 137", code)
	}
	if want := fmt.Sprintf("🛑 Agent worker was killed: kill switch: agentbox kill by uid %d (pid %d)\n", os.Getuid(), os.Getpid()); !strings.Contains(a.stderr.String(), want) {
		t.Errorf("run's stderr lacks %q:\n%s", want, a.stderr.String())
	}
	// The other one is now the only "worker".
	code, out, errOut = runCLI(t, "kill", "--json", "worker")
	var killed1 killReport
	if err := json.Unmarshal([]byte(out), &killed1); code != 0 || err != nil || killed1.Killed == nil ||
		killed1.Killed.ID == rec.ID || killed1.Killed.Name != "worker" || killed1.ElapsedMS <= 0 {
		t.Fatalf("kill --json worker: exit %d %v %q %s", code, err, out, errOut)
	}
	if code := b.wait(t, 15*time.Second); code != exitKilled {
		t.Errorf("second run exited %d", code)
	}
	code, _, errOut = runCLI(t, "kill", "worker")
	if code != exitFailure || !strings.Contains(errOut, `no such running agent: "worker"`) {
		t.Errorf("kill of nothing: exit %d %s", code, errOut)
	}
	logPath := filepath.Join(state, "logs", "worker.log")
	killed, err := audit.Query(logPath, audit.Filter{Type: audit.AgentKilled})
	if err != nil || len(killed) != 2 || killed[0].AgentID != rec.ID || killed[0].Details["by_pid"] != json.Number(strconv.Itoa(os.Getpid())) {
		t.Errorf("agent_killed events: %+v %v", killed, err)
	}
}

// TestRunCrash SIGKILLs "agentbox run" itself: the kernel must end the
// agent's tree (the init dies with its parent, and the pid namespace with
// its init), and the audit log must verify up to its last entry.
func TestRunCrash(t *testing.T) {
	state := runEnv(t)
	m := writeManifest(t, "name: orphan\n")
	p := startCLI(t, "run", "--manifest", m, "--", "/bin/sh", "-c", "sleep 60 & (sleep 60 &) ; echo ready; wait")
	p.waitOutput(t, "ready")
	rec := waitAgents(t, 1)[0]
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", rec.InitPid))
	if err != nil {
		t.Fatal(err)
	}
	before := nsProcs(t, ns)
	if len(before) < 4 {
		t.Fatalf("the agent's tree is %v, want init, sh and two sleeps", before)
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(t, 10*time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for left := nsProcs(t, ns); len(left) > 0; left = nsProcs(t, ns) {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v of %v outlived agentbox run", left, before)
		}
		time.Sleep(5 * time.Millisecond)
	}
	logPath := filepath.Join(state, "logs", "orphan.log")
	rep, err := audit.Verify(logPath, audit.VerifyOptions{})
	if err != nil || !rep.OK || rep.Entries < 1 {
		t.Errorf("audit log after the crash: %+v %v", rep, err)
	}
	// The registry entry of the dead run is stale and goes.
	if list := agentsRunning(t); len(list) != 0 {
		t.Errorf("ps still lists %+v", list)
	}
	if _, err := os.Stat(filepath.Join(state, "agents", rec.ID+".json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale entry still on disk (%v)", err)
	}
	// The next run continues the chain.
	if code, _, errOut := runCLI(t, "run", "--manifest", m, "--", "/bin/true"); code != 0 {
		t.Fatalf("run after the crash: %d %s", code, errOut)
	}
	rep, err = audit.Verify(logPath, audit.VerifyOptions{})
	if err != nil || !rep.OK {
		t.Errorf("audit log after the next run: %+v %v", rep, err)
	}
	// The killed run signed nothing; the next one says so, and verify
	// repeats it.
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "not signed by a writer") {
		t.Errorf("verify's warnings after a crashed run: %q; want the next run's alert about its entries", rep.Warnings)
	}
}
