package agentbox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

func TestForbiddenAndEscalated(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	ctx := context.Background()
	_, err := m.Exec(ctx, "rm -rf /")
	var fe *agentbox.ForbiddenCommandError
	if !errors.As(err, &fe) || !errors.Is(err, agentbox.ErrForbiddenCommand) || fe.Rule != "recursive-delete-root" {
		t.Fatalf("rm -rf /: %v", err)
	}
	_, err = m.ExecArgs(ctx, "sudo", []string{"true"})
	var ee *agentbox.EscalatedCommandError
	if !errors.As(err, &ee) || !errors.Is(err, agentbox.ErrEscalatedCommand) || ee.Rule != "sudo" {
		t.Fatalf("sudo: %v", err)
	}
	// Forbidden stays forbidden even when approved.
	if _, err := m.Exec(ctx, "rm -rf /", agentbox.WithApproved()); !errors.Is(err, agentbox.ErrForbiddenCommand) {
		t.Fatalf("approved forbidden: %v", err)
	}
	// The classification is part of the result; benign commands run sandboxed.
	res, err := m.Exec(ctx, "echo hi")
	if err != nil || res.Classification.Decision != agentbox.DecisionAllow || !res.Sandboxed {
		t.Fatalf("echo: %v %+v", err, res)
	}
}

func TestApprovalCallbackAndCache(t *testing.T) {
	t.Parallel()
	cfg := agentbox.CIConfig()
	var asked []string
	answer := agentbox.ApprovalDeny
	cfg.ApprovalCallback = func(_ context.Context, r agentbox.ApprovalRequest) (agentbox.ApprovalDecision, error) {
		asked = append(asked, r.Command)
		if r.Result.Decision != agentbox.DecisionEscalated {
			t.Errorf("asked about a %v command", r.Result.Decision)
		}
		return answer, nil
	}
	cfg.ApprovalCache = agentbox.NewMemoryApprovalCache()
	m := newManager(t, cfg)
	ctx := context.Background()
	const escalated = "git push origin main 2>/dev/null; exit 0"
	if _, err := m.Exec(ctx, escalated); !errors.Is(err, agentbox.ErrEscalatedCommand) {
		t.Fatalf("denied: %v", err)
	}
	answer = agentbox.ApprovalOnce
	if res, err := m.Exec(ctx, escalated); err != nil || res.ExitCode != 0 {
		t.Fatalf("approved once: %v %+v", err, res)
	}
	answer = agentbox.ApprovalAlways
	if _, err := m.Exec(ctx, escalated); err != nil {
		t.Fatalf("approved always: %v", err)
	}
	answer = agentbox.ApprovalDeny
	if _, err := m.Exec(ctx, escalated); err != nil {
		t.Fatalf("the cache was not used: %v", err)
	}
	if len(asked) != 3 {
		t.Fatalf("asked %d times, want 3 (the fourth comes from the cache)", len(asked))
	}
	// A failing callback refuses.
	cfg.ApprovalCallback = func(context.Context, agentbox.ApprovalRequest) (agentbox.ApprovalDecision, error) {
		return agentbox.ApprovalAlways, errors.New("nobody home")
	}
	m2 := newManager(t, cfg)
	if _, err := m2.Exec(ctx, "ssh example.test true"); !errors.Is(err, agentbox.ErrEscalatedCommand) {
		t.Fatalf("callback error: %v", err)
	}
}

func TestCheckAndCustomRules(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	ctx := context.Background()
	r, err := m.Check(ctx, "echo 'rm -rf /'")
	if err != nil || r.Decision != agentbox.DecisionAllow {
		t.Fatalf("echo of a dangerous string: %v %+v", err, r)
	}
	rule := agentbox.WithCustomRules(agentbox.UserRule{Pattern: "make deploy*", Decision: agentbox.DecisionForbidden, Description: "no deploys from agents"})
	r, err = m.Check(ctx, "make deploy ENV=prod", rule)
	if err != nil || r.Decision != agentbox.DecisionForbidden {
		t.Fatalf("custom rule: %v %+v", err, r)
	}
	if _, err := m.Exec(ctx, "make deploy ENV=prod", rule); !errors.Is(err, agentbox.ErrForbiddenCommand) {
		t.Fatalf("custom rule not applied to Exec: %v", err)
	}
	over := agentbox.WithRuleOverrides(agentbox.RuleOverride{Rule: "sudo", Decision: agentbox.DecisionForbidden})
	if r, _ := m.Check(ctx, "sudo ls", over); r.Decision != agentbox.DecisionForbidden {
		t.Fatalf("override: %+v", r)
	}
	if r, _ := m.Check(ctx, "sudo ls"); r.Decision != agentbox.DecisionEscalated {
		t.Fatalf("the override leaked into the next call: %+v", r)
	}
	if _, err := m.Check(ctx, "x", agentbox.WithRuleOverrides(agentbox.RuleOverride{Rule: "no-such-rule"})); !errors.Is(err, agentbox.ErrConfigInvalid) {
		t.Fatalf("unknown rule: %v", err)
	}
}

// TestExecClassifiesAsItsShell: dash (/bin/sh here) runs rm in a line bash
// reads as one echo. Exec and Check judge the line as the shell that runs
// it reads it: refused with /bin/sh, run with /bin/bash (where it echoes).
func TestExecClassifiesAsItsShell(t *testing.T) {
	t.Parallel()
	const line = `echo $'x\' ; rm -rf ~ #\''`
	m := newManager(t, agentbox.CIConfig())
	ctx := context.Background()
	if _, err := m.Exec(ctx, line, agentbox.WithShell("/usr/bin/dash")); !errors.Is(err, agentbox.ErrForbiddenCommand) {
		t.Errorf("Exec with dash: %v, want forbidden", err)
	}
	if r, err := m.Check(ctx, line, agentbox.WithShell("/usr/bin/dash")); err != nil || r.Decision != agentbox.DecisionForbidden {
		t.Errorf("Check with dash: %v %v, want forbidden", r.Decision, err)
	}
	res, err := m.Exec(ctx, line, agentbox.WithShell("/bin/bash"))
	if err != nil || res.ExitCode != 0 || string(res.Stdout) != "x' ; rm -rf ~ #'\n" {
		t.Fatalf("Exec with bash: %+v %v", res, err)
	}
}
