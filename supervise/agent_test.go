//go:build linux

package supervise

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/audit"
	"github.com/agentbox-dev/agentbox/internal/syncbuf"
	"github.com/agentbox-dev/agentbox/policy"
)

const python = "/usr/bin/python3"

// waitOutput waits until the agent's output contains s.
func (r *run) waitOutput(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(r.stdout.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("output %q never showed %q", r.stdout.String(), s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestExitStatus(t *testing.T) {
	f := newFixture(t)
	m := f.manifest("name: status\naudit: {log_level: full}\n")
	tests := []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 3", 3},
		{"kill -TERM $$", 128 + int(syscall.SIGTERM)},
		// The program's own death by SIGKILL is its status, not a kill by agentbox.
		{"kill -KILL $$", 137},
	}
	for _, tt := range tests {
		r := f.start(m, "/bin/sh", "-c", tt.script)
		res := r.wait(t, 20*time.Second)
		if res.ExitCode != tt.want || res.Killed != nil {
			t.Errorf("%q: exit %d killed %+v, want %d and no kill", tt.script, res.ExitCode, res.Killed, tt.want)
		}
		evs := f.events(res.AuditLog, res.ID)
		if got := eventTypes(evs); !slices.Equal(got, []string{audit.AgentStart, audit.AgentExit}) {
			t.Errorf("%q: events %q", tt.script, got)
			continue
		}
		start, exit := evs[0], evs[1]
		if start.Details["digest"] != m.Digest || start.Details["runtime"] != "native" || start.Details["memory"] != res.Memory ||
			start.Details["layers"] == nil || start.AgentName != "status" {
			t.Errorf("%q: agent_start %+v", tt.script, start)
		}
		if exit.Details["exit_code"] != jsonNumber(tt.want) {
			t.Errorf("%q: agent_exit details %v", tt.script, exit.Details)
		}
	}
	if list, _ := f.reg.List(); len(list) != 0 {
		t.Errorf("registry still lists %+v after the runs", list)
	}
}

func jsonNumber(n int) any { return json.Number(strconv.Itoa(n)) }

func TestDurationLimitPrecision(t *testing.T) {
	f := newFixture(t)
	m := f.manifest("name: slow\nlimits: {max_duration: 300ms}\naudit: {alert_on: [limit_breached, duration_budget_80pct]}\n")
	var late []time.Duration
	for i := 0; i < 5; i++ {
		r := f.start(m, "/bin/sh", "-c", "sleep 30 & sleep 30; wait")
		res := r.wait(t, 20*time.Second)
		k := res.Killed
		if res.ExitCode != 137 || k == nil || k.Cause != CauseDuration || k.Due.IsZero() {
			t.Fatalf("exit %d killed %+v, want 137 by the duration limit", res.ExitCode, k)
		}
		if k.At.Before(k.Due) {
			t.Fatalf("killed %v before the limit was due", k.Due.Sub(k.At))
		}
		late = append(late, k.At.Sub(k.Due))
		if want := "duration limit exceeded: 300ms"; !slices.Contains(r.notices.of(NoticeKilling), want) {
			t.Errorf("notices %q lack %q", r.notices.of(NoticeKilling), want)
		}
		// The 🛑 line is the operator's alert for the breach: no second
		// line, but an alert event in the log. The 80% alert has its line.
		if a := r.notices.of(NoticeAlert); len(a) != 1 || a[0] != "duration_budget_80pct: 80% of limits.max_duration (300ms) has passed" {
			t.Errorf("alert lines %q, want only the 80%% one", a)
		}
		if i == 0 {
			evs := f.events(res.AuditLog, res.ID)
			want := []string{audit.AgentStart, audit.Alert, audit.LimitBreached, audit.Alert, audit.AgentKilled, audit.AgentExit}
			if got := eventTypes(evs); !slices.Equal(got, want) {
				t.Errorf("events %q, want %q", got, want)
			} else if evs[1].Resource != "duration_budget_80pct" || evs[3].Resource != audit.LimitBreached {
				t.Errorf("alerts for %q and %q", evs[1].Resource, evs[3].Resource)
			}
			if e := findEvent(evs, audit.AgentKilled); e == nil || e.Rule != string(CauseDuration) || e.Allowed {
				t.Errorf("agent_killed %+v", e)
			}
		}
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	t.Logf("duration limit lateness over %d runs: %v", len(late), late)
	if late[len(late)/2] > 10*time.Millisecond {
		t.Errorf("median lateness %v, want under 10ms", late[len(late)/2])
	}
}

func TestSignalForwarding(t *testing.T) {
	f := newFixture(t)
	m := f.manifest("name: sig\n")
	r := f.start(m, "/bin/sh", "-c", `trap 'echo got TERM; exit 7' TERM; echo ready; while :; do sleep 0.05; done`)
	r.waitOutput(t, "ready")
	if err := r.ag.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	res := r.wait(t, 10*time.Second)
	if res.ExitCode != 7 || res.Killed != nil || !strings.Contains(r.stdout.String(), "got TERM") {
		t.Errorf("exit %d killed %+v output %q; want 7 from the agent's own trap", res.ExitCode, res.Killed, r.stdout.String())
	}
}

func TestGraceKill(t *testing.T) {
	f := newFixture(t)
	m := f.manifest("name: stubborn\n")
	// The agent and its child ignore SIGTERM.
	r := f.start(m, "/bin/sh", "-c", `trap '' TERM; echo ready; sleep 30`)
	r.waitOutput(t, "ready")
	sent := time.Now()
	if err := r.ag.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	res := r.wait(t, 10*time.Second)
	took := time.Since(sent)
	if res.ExitCode != 137 || res.Killed == nil || res.Killed.Cause != CauseGrace {
		t.Fatalf("exit %d killed %+v, want 137 after the grace period", res.ExitCode, res.Killed)
	}
	if took < 300*time.Millisecond || took > 5*time.Second {
		t.Errorf("killed %v after SIGTERM, want just after the 300ms grace", took)
	}
	if want := "still running 300ms after SIGTERM"; !slices.Contains(r.notices.of(NoticeKilling), want) {
		t.Errorf("notices %q lack %q", r.notices.of(NoticeKilling), want)
	}

	// A second signal does not wait for the grace period.
	ag, err := Start(context.Background(), m, Options{Program: "/bin/sh", Args: []string{"-c", "trap '' INT; sleep 30"},
		Registry: f.reg, Grace: time.Hour, Approved: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = ag.Signal(syscall.SIGINT)
	_ = ag.Signal(syscall.SIGINT)
	res, err = ag.Wait()
	if err != nil || res.ExitCode != 137 || res.Killed == nil || res.Killed.Cause != CauseInterrupt {
		t.Fatalf("second SIGINT: %+v, %v", res, err)
	}
}

func TestKillSwitchFromAnotherProcess(t *testing.T) {
	f := newFixture(t)
	m := f.manifest("name: target\naudit: {log_level: minimal, alert_on: [agent_killed]}\n")
	r := f.start(m, "/bin/sh", "-c", "sleep 30 & sleep 30 & echo ready; wait")
	r.waitOutput(t, "ready")
	_, before := waitProcs(t, r.ag.Pid(), 4) // init, sh, two sleeps
	if list, err := f.reg.List(); err != nil || len(list) != 1 || list[0].ID != r.ag.ID() || list[0].InitPid != r.ag.Pid() {
		t.Fatalf("registry: %+v, %v", list, err)
	}
	h := helper(t, f.reg, "kill target")
	out, err := h.CombinedOutput()
	if err != nil {
		t.Fatalf("kill from another process: %v\n%s", err, out)
	}
	if left, ok := treeGone(before, 0); !ok {
		t.Errorf("processes %v (of %v) outlived the kill", left, before)
	}
	res := r.wait(t, 10*time.Second)
	k := res.Killed
	if res.ExitCode != 137 || k == nil || k.Cause != CauseKillSwitch || k.By == nil || k.By.ByPid != h.Process.Pid || k.By.ByUID != os.Getuid() {
		t.Fatalf("exit %d killed %+v, want 137 by the kill switch from pid %d", res.ExitCode, k, h.Process.Pid)
	}
	evs := f.events(res.AuditLog, res.ID)
	e := findEvent(evs, audit.AgentKilled)
	if e == nil || e.Rule != string(CauseKillSwitch) || fmt.Sprint(e.Details["by_pid"]) != strconv.Itoa(h.Process.Pid) {
		t.Errorf("agent_killed %+v", e)
	}
	if a := findEvent(evs, audit.Alert); a == nil || a.Resource != audit.AgentKilled {
		t.Errorf("no alert for agent_killed in %q", eventTypes(evs))
	}
	if got := r.notices.of(NoticeKilled); len(got) != 1 || !strings.Contains(got[0], "kill switch") {
		t.Errorf("notices %q", got)
	}
	if _, err := f.reg.Marker(res.ID); err != nil {
		t.Error(err)
	}
	if list, _ := f.reg.List(); len(list) != 0 {
		t.Errorf("registry still lists %+v", list)
	}
	// Nothing is left to kill.
	if out, err := helper(t, f.reg, "kill target").CombinedOutput(); err == nil || !strings.Contains(string(out), "no such running agent") {
		t.Errorf("second kill: %v %s", err, out)
	}
}

func TestAmbiguousNameLive(t *testing.T) {
	f := newFixture(t)
	m := f.manifest("name: twin\n")
	a := f.start(m, "/bin/sleep", "30")
	b := f.start(m, "/bin/sleep", "30")
	out, err := helper(t, f.reg, "kill twin").CombinedOutput()
	var ee interface{ ExitCode() int }
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), a.ag.ID()) || !strings.Contains(string(out), b.ag.ID()) {
		t.Fatalf("kill of an ambiguous name: %v\n%s", err, out)
	}
	for _, r := range []*run{a, b} {
		if out, err := helper(t, f.reg, "kill "+r.ag.ID()).CombinedOutput(); err != nil {
			t.Fatalf("kill %s: %v\n%s", r.ag.ID(), err, out)
		}
		if res := r.wait(t, 10*time.Second); res.ExitCode != 137 || res.Killed == nil || res.Killed.Cause != CauseKillSwitch {
			t.Errorf("%s: exit %d killed %+v", r.ag.ID(), res.ExitCode, res.Killed)
		}
	}
}

func TestNetworkDecisionsAndAlerts(t *testing.T) {
	f := newFixture(t)
	m := f.manifest("name: net\npermissions: {network: {allow: [api.example.com], deny: [\"*\"]}}\n" +
		"audit: {log_level: minimal, alert_on: [network_deny, agent_exit]}\n")
	script := `import os, socket
h, p = os.environ["HTTPS_PROXY"][len("http://"):].rsplit(":", 1)
s = socket.create_connection((h, int(p)))
s.sendall(b"CONNECT denied.example:443 HTTP/1.1\r\nHost: denied.example:443\r\n\r\n")
print(s.recv(200).split(b"\r\n")[0].decode())`
	r := f.start(m, python, "-c", script)
	res := r.wait(t, 20*time.Second)
	if res.ExitCode != 0 || !strings.Contains(r.stdout.String(), " 403") {
		t.Fatalf("exit %d output %q, want the proxy's refusal", res.ExitCode, r.stdout.String())
	}
	evs := f.events(res.AuditLog, res.ID)
	d := findEvent(evs, audit.NetworkDeny)
	if d == nil || d.Resource != "denied.example:443" || d.Rule == "" || d.Allowed {
		t.Fatalf("network_deny %+v in %q", d, eventTypes(evs))
	}
	var alerted []string
	for _, e := range evs {
		if e.EventType == audit.Alert {
			alerted = append(alerted, e.Resource)
		}
	}
	if !slices.Equal(alerted, []string{audit.NetworkDeny, audit.AgentExit}) {
		t.Errorf("alert events for %q, want network_deny then agent_exit", alerted)
	}
	if got := r.notices.of(NoticeAlert); len(got) != 2 || !strings.HasPrefix(got[0], "network_deny: denied.example:443 (") {
		t.Errorf("alert lines %q", got)
	}
	if got := eventTypes(evs); got[0] != audit.AgentStart {
		t.Errorf("events %q do not start with agent_start", got)
	}
}

// TestNetworkDecisionFlood has an agent make 3,000 refused connections as
// fast as it can (a loop retrying a denied host, or an agent out to fill
// the disk): the audit log holds the first ones and then about netRate a
// second one by one, the rest as summaries that count them, so that every
// decision is accounted for, and the log verifies.
func TestNetworkDecisionFlood(t *testing.T) {
	f := newFixture(t)
	m := f.manifest("name: flood\npermissions: {network: {allow: [api.example.com], deny: [\"*\"]}}\n" +
		"audit: {log_level: minimal}\n")
	const n = 3000
	script := fmt.Sprintf(`import os, socket
h, p = os.environ["HTTPS_PROXY"][len("http://"):].rsplit(":", 1)
for i in range(%d):
    s = socket.create_connection((h, int(p)))
    s.sendall(b"CONNECT d%%d.denied.example:443 HTTP/1.1\r\n\r\n" %% i)
    s.recv(200)
    s.close()
print("done")`, n)
	start := time.Now()
	r := f.start(m, python, "-c", script)
	res := r.wait(t, 120*time.Second)
	took := time.Since(start)
	if res.ExitCode != 0 || !strings.Contains(r.stdout.String(), "done") {
		t.Fatalf("exit %d output %q", res.ExitCode, r.stdout.String())
	}
	evs := f.events(res.AuditLog, res.ID)
	single, summarized, summaries := 0, 0, 0
	for _, e := range evs {
		if e.EventType != audit.NetworkDeny {
			continue
		}
		c, ok := e.Details["summarized"]
		if !ok {
			single++
			continue
		}
		k, err := c.(json.Number).Int64()
		if err != nil {
			t.Fatal(err)
		}
		summaries++
		summarized += int(k)
	}
	if single+summarized != n {
		t.Errorf("%d decisions logged one by one and %d in %d summaries; want %d in all", single, summarized, summaries, n)
	}
	if most := netBurst + int(took.Seconds()*netRate) + 1; single > most || summaries == 0 {
		t.Errorf("%d decisions logged one by one in %v (at most %d), %d summaries", single, took.Round(time.Millisecond), most, summaries)
	}
	t.Logf("%d refused connections in %v: %d entries one by one, %d summaries", n, took.Round(time.Millisecond), single, summaries)
}

func TestAuditLogPlacement(t *testing.T) {
	f := newFixture(t)
	w := filepath.Join(f.dir, "work")
	src := fmt.Sprintf("name: x\npermissions: {filesystem: {write: [%s]}}\naudit: {log_path: %s/logs/x.log}\n", w, w)
	_, err := Start(context.Background(), f.manifest(src), Options{Program: "/bin/true", Registry: f.reg})
	if !errors.Is(err, ErrAuditLogPlacement) {
		t.Errorf("log inside a writable root: %v, want ErrAuditLogPlacement", err)
	}
	// Off: no log at all, the run works.
	ag, err := Start(context.Background(), f.manifest("name: quiet\naudit: {log_level: off}\n"), Options{Program: "/bin/true", Registry: f.reg})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ag.Wait()
	if err != nil || res.ExitCode != 0 || res.AuditLog != "" {
		t.Errorf("log_level off: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(f.reg.StateDir, "logs", "quiet.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("log_level off wrote a log (%v)", err)
	}
}

// TestRefusedRunLeavesNoLogDirectories: a run refused after the audit
// log's directories were made (here: they would lie in a directory others
// may write) takes them away again; an accepted one keeps them.
func TestRefusedRunLeavesNoLogDirectories(t *testing.T) {
	f := newFixture(t)
	shared := filepath.Join(f.dir, "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf("name: x\naudit: {log_path: %s/a/b/x.log}\n", shared)
	_, err := Start(context.Background(), f.manifest(src), Options{Program: "/bin/true", Registry: f.reg})
	if !errors.Is(err, audit.ErrUnsafeLocation) {
		t.Fatalf("log under a directory others may write: %v, want audit.ErrUnsafeLocation", err)
	}
	if _, err := os.Lstat(filepath.Join(shared, "a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused run left %s behind (%v)", filepath.Join(shared, "a"), err)
	}
	mine := filepath.Join(f.dir, "mine", "a", "x.log")
	ag, err := Start(context.Background(), f.manifest(fmt.Sprintf("name: x\naudit: {log_path: %s}\n", mine)), Options{Program: "/bin/true", Registry: f.reg})
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	if res, err := ag.Wait(); err != nil || res.ExitCode != 0 {
		t.Fatalf("control: %+v, %v", res, err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("control: %v", err)
	}
}

func TestAgentCannotReadItsAuditLog(t *testing.T) {
	f := newFixture(t)
	// A log in a directory of its own, under /var/tmp so the agent would
	// otherwise see it (its /tmp is private).
	dir, err := os.MkdirTemp("/var/tmp", "supervise-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "logs", "spy.log")
	m := f.manifest(fmt.Sprintf("name: spy\naudit: {log_path: %s}\n", logPath))
	r := f.start(m, "/bin/sh", "-c", "cat "+logPath+" && echo READ-LOG; ls "+filepath.Dir(logPath)+" && echo LISTED; cat "+f.reg.StateDir+"/audit/key && echo READ-KEY; exit 0")
	res := r.wait(t, 20*time.Second)
	if res.ExitCode != 0 || strings.Contains(r.stdout.String(), "READ-") || strings.Contains(r.stdout.String(), "LISTED") {
		t.Errorf("the agent reached its audit log or the audit key:\n%s", r.stdout.String())
	}
	if evs := f.events(logPath, res.ID); len(evs) != 2 {
		t.Errorf("events %q", eventTypes(evs))
	}
}

// In a directory the agent may read, the files of its audit log stay out
// of its reach, the writers' lock included: holding that lock, it could
// stop every later writer from opening the log.
func TestAgentCannotReachAuditLogFilesInItsReadDir(t *testing.T) {
	f := newFixture(t)
	other := scriptFile(t, "notes.txt", "notes\n") // in a directory the agent can read
	dir := filepath.Dir(other)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "spy.log")
	// Readable by all, so that only the deny list keeps the agent out
	// (a file only its owner reads is out of its reach anyway when
	// agentbox runs as root).
	if err := os.WriteFile(logPath+audit.WritersLockSuffix, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m := f.manifest(fmt.Sprintf("name: spy\npermissions: {filesystem: {read: [%s, %s]}}\naudit: {log_path: %s}\n", dir, wd, logPath))
	script := "cat " + other + " && echo READ-OTHER; "
	for _, p := range []string{logPath, logPath + audit.CheckpointSuffix, logPath + audit.WritersLockSuffix} {
		script += "cat " + p + " && echo READ-" + filepath.Base(p) + "; "
	}
	r := f.start(m, "/bin/sh", "-c", script+"exit 0")
	res := r.wait(t, 20*time.Second)
	out := r.stdout.String()
	if res.ExitCode != 0 || !strings.Contains(out, "READ-OTHER") || strings.Contains(out, "READ-spy") {
		t.Errorf("the agent reached its audit log's files (or not the directory):\n%s", out)
	}
}

func TestClassifierRefusal(t *testing.T) {
	f := newFixture(t)
	m := f.manifest("name: reckless\n")
	_, err := Start(context.Background(), m, Options{Program: "/bin/sh", Args: []string{"-c", "rm -rf / --no-preserve-root"}, Registry: f.reg, Approved: true})
	if !errors.Is(err, agentbox.ErrForbiddenCommand) {
		t.Fatalf("Start of a forbidden program: %v", err)
	}
	_, err = Start(context.Background(), m, Options{Program: "/bin/sh", Args: []string{"-c", "kill -9 1"}, Registry: f.reg})
	if !errors.Is(err, agentbox.ErrEscalatedCommand) {
		t.Fatalf("Start of an escalated program without approval: %v", err)
	}
	evs := f.events(filepath.Join(f.reg.StateDir, "logs", "reckless.log"), "")
	if got := eventTypes(evs); !slices.Equal(got, []string{audit.CommandRefused, audit.CommandRefused}) {
		t.Fatalf("events %q", got)
	}
	if e := evs[0]; e.Allowed || e.Rule == "" || !strings.Contains(e.Resource, "rm -rf") {
		t.Errorf("command_refused %+v", e)
	}
	if list, _ := f.reg.List(); len(list) != 0 {
		t.Errorf("a refused agent is registered: %+v", list)
	}
}

// TestAgentCannotRewriteItsManifest: an agent that may write in its
// manifest's directory tries to widen its own next run by rewriting or
// replacing the manifest; writing beside it works.
func TestAgentCannotRewriteItsManifest(t *testing.T) {
	f := newFixture(t)
	src := "name: selfedit\npermissions: {filesystem: {write: [\".\"]}}\n"
	dir := t.TempDir() // the agent's own directory, apart from the fixture's state
	if err := os.WriteFile(filepath.Join(dir, "selfedit.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := policy.LoadManifest(filepath.Join(dir, "selfedit.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	evil := "name: selfedit\npermissions: {filesystem: {write: [\"/\"]}, network: {allow: [\"*\"]}}\n"
	script := fmt.Sprintf(`printf '%%s' %q > %s && echo WROTE; mv %s %s.old && echo MOVED; printf '%%s' %q > %s.new && mv %s.new %s && echo REPLACED; echo ok > %s/legit && echo LEGIT`,
		evil, m.File, m.File, m.File, evil, m.File, m.File, m.File, dir)
	r := f.start(m, "/bin/sh", "-c", script)
	res := r.wait(t, 20*time.Second)
	out := r.stdout.String()
	if strings.Contains(out, "WROTE") || strings.Contains(out, "MOVED") || strings.Contains(out, "REPLACED") {
		t.Errorf("ESCAPE: the agent changed its manifest:\n%s", out)
	}
	if b, err := os.ReadFile(m.File); err != nil || string(b) != src {
		t.Errorf("ESCAPE: the manifest now reads %q (%v)", b, err)
	}
	if !strings.Contains(out, "LEGIT") || res.ExitCode != 0 {
		t.Errorf("control: writing beside the manifest failed (exit %d):\n%s", res.ExitCode, out)
	}
}

// TestAgentCannotRedirectItsReadPaths: a manifest lets the agent read
// ./data/inbox and write ./data. The agent swaps inbox for a link to a
// private directory; its next run must not read there.
func TestAgentCannotRedirectItsReadPaths(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	inbox := filepath.Join(dir, "data", "inbox")
	if err := os.MkdirAll(inbox, 0o755); err != nil {
		t.Fatal(err)
	}
	private, err := os.MkdirTemp("/var/tmp", "supervise-private-") // the sandbox's /tmp is its own
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(private) })
	if err := os.Chmod(private, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(private, "mail"), []byte("private-mail-7f3a"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "name: mailbox\npermissions: {filesystem: {read: [./data/inbox], write: [./data]}}\n"
	if err := os.WriteFile(filepath.Join(dir, "mailbox.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := policy.LoadManifest(filepath.Join(dir, "mailbox.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	var out syncbuf.Buffer
	ag, err := Start(context.Background(), m, Options{Program: "/bin/sh", Dir: data, Stdout: &out, Stderr: &out, Registry: f.reg, Approved: true,
		Args: []string{"-c", fmt.Sprintf("mv %s %s.old && ln -s %s %s && echo SWAPPED", inbox, inbox, private, inbox)}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := ag.Wait(); err != nil || res.ExitCode != 0 || !strings.Contains(out.String(), "SWAPPED") {
		t.Fatalf("control: the agent could not rearrange its own data (%v): %s", err, out.String())
	}
	ag, err = Start(context.Background(), m, Options{Program: "/bin/cat", Args: []string{filepath.Join(inbox, "mail")},
		Dir: data, Registry: f.reg, Approved: true})
	if err == nil {
		res, _ := ag.Wait()
		t.Fatalf("ESCAPE: the next run started through the planted link (exit %d)", res.ExitCode)
	}
	if !errors.Is(err, agentbox.ErrConfigInvalid) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("the next run failed, but not for the planted link: %v", err)
	}
}
