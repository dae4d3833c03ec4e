package supervise

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/policy"
)

// TestRedteam59AlertOnThatCannotFire: audit.alert_on accepts every name of
// policy.AlertKinds, whatever the rest of the manifest says. An alert on
// a budget whose limit the manifest does not set (duration_budget_80pct
// without limits.max_duration, token_budget_80pct without
// limits.max_tokens, request_budget_100pct, tool_call_budget_100pct) can
// never fire: there is no budget to cross. The manifest is valid,
// `agentbox validate` prints "alerts on duration_budget_80pct,
// token_budget_80pct", and `agentbox run` starts the agent without a
// word: the "not enforced yet" warning (supervise.Unenforced) names
// limits only when they are set, and never the alerts. An operator who
// relies on the alert to learn that a long-running agent is about to run
// out of time or tokens is silently told nothing. DESIGN.md invariant 8:
// anything agentbox cannot enforce is refused or reported, never
// pretended.
//
// Attack (a manifest value silently downgraded to nothing):
//
//	audit: {alert_on: [duration_budget_80pct, token_budget_80pct]}
//
// with no limits section; the agent runs past any point an alert could
// mark, and no alert and no warning about either alert comes.
//
// Why it works: policy/manifest_sections.go:(*decoder).audit checks each
// alert_on value only against policy.AlertKinds
// (policy/manifest_audit.go:CheckAlertKind), not against the limits it
// depends on; supervise/compile.go:Unenforced lists limits.* and
// permissions.tools but no alert_on value; supervise/agent.go:armDuration
// returns before arming the 80% alert when max_duration is unset, and no
// code raises the token, request or tool-call budget alerts at all.
//
// Severity: low (a manifest field accepted and then silently ignored: the
// operator's alert never fires). Found by red-team round 59. Fixed: supervise/compile.go (Unenforced names
// every alert nothing raises in the run, with why: validate and run warn).
//
// The test passes when the manifest is refused (LoadManifest or Start
// errs naming the alert) or the run warns about each dead alert by name.
// Control: with limits.max_duration set, duration_budget_80pct does fire
// in the same kind of run.
func TestRedteam59AlertOnThatCannotFire(t *testing.T) {
	f := newFixture(t)

	// Control: the 80% alert fires when there is a duration budget.
	ctl := f.manifest("name: rt59a-alerts-ctl\nlimits: {max_duration: 3s}\naudit: {alert_on: [duration_budget_80pct]}\n")
	rc := f.start(ctl, "/bin/sh", "-c", "sleep 2.6")
	res := rc.wait(t, 30*time.Second)
	if res.ExitCode != 0 {
		t.Fatalf("control: exit %d (killed %+v), want 0", res.ExitCode, res.Killed)
	}
	if a := rc.notices.of(NoticeAlert); len(a) != 1 || !strings.HasPrefix(a[0], "duration_budget_80pct: ") {
		t.Fatalf("control: alert lines %q, want the duration_budget_80pct one", a)
	}

	// Attack: the same alerts without the limits they measure.
	dead := []string{"duration_budget_80pct", "token_budget_80pct", "request_budget_100pct", "tool_call_budget_100pct"}
	src := "name: rt59a-alerts\naudit: {alert_on: [" + strings.Join(dead, ", ") + "]}\n"
	p := filepath.Join(f.dir, "rt59a-dead.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := policy.LoadManifest(p)
	if err != nil {
		t.Logf("refused at load (the attack fails): %v", err)
		return
	}
	n := &notices{}
	ag, err := Start(context.Background(), m, Options{
		Program: "/bin/sh", Args: []string{"-c", "sleep 2.6"},
		Registry: f.reg, Notify: n.add, Grace: 300 * time.Millisecond, Approved: true,
	})
	if err != nil {
		if errors.Is(err, ErrNoProgram) {
			t.Fatal(err)
		}
		t.Logf("refused at start (the attack fails): %v", err)
		return
	}
	r := &run{ag: ag, notices: n}
	t.Cleanup(func() { ag.Kill("test cleanup"); _, _ = ag.Wait() })
	res = r.wait(t, 30*time.Second)
	// Premise: the agent ran the same 2.6 s as the control, whose alert
	// came at 2.4 s; here none can.
	if res.ExitCode != 0 || res.Duration < 2500*time.Millisecond {
		t.Fatalf("exit %d after %v, want 0 after the full sleep", res.ExitCode, res.Duration)
	}
	if a := n.of(NoticeAlert); len(a) != 0 {
		t.Logf("alerts %q", a)
	}
	warnings := strings.Join(n.of(NoticeWarning), "\n")
	var silent []string
	for _, k := range dead {
		if !strings.Contains(warnings, k) {
			silent = append(silent, k)
		}
	}
	if len(silent) > 0 {
		t.Errorf("audit.alert_on %q accepted, the run started and ended, and nothing said these alerts can never fire (warnings: %q)", silent, warnings)
	}
}
