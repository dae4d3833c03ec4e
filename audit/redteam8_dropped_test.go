package audit

import (
	"context"
	"os"
	"testing"
)

// TestRedteam8EventsDroppedWithoutTrace: while a line that is not an
// entry sits at the log's end, every write of the writer fails (it cannot
// read the last entry to chain onto). The attacker appends such a line,
// lets the writer's events for a while fail (here one network_deny), and
// then removes exactly that line, leaving the file as the writer last saw
// it. The writer's next append succeeds and nothing in the log says that
// events were lost: no alert, and Verify reports the log intact with no
// warning, though events the writer was asked to record are missing. Only
// the writer's caller saw an error (agentbox run prints one warning).
//
// The attack fails when the log carries the loss (an alert of the writer,
// or Verify not intact or warning). The control: no bad line, the event is
// in the log.
//
// Fixed: the next write that succeeds logs audit.write_failed with how
// many events were lost, which Verify repeats as a warning.
func TestRedteam8EventsDroppedWithoutTrace(t *testing.T) {
	for _, attack := range []bool{false, true} {
		name := "control: a network_deny appended"
		if attack {
			name = "a network_deny appended while a bad line ends the log"
		}
		t.Run(name, func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 3, Options{})
			ctx := context.Background()
			l := env.open(t, Options{})
			if err := l.Append(ctx, sampleEvent(0)); err != nil {
				t.Fatal(err)
			}
			deny := Event{EventType: NetworkDeny, Resource: "exfil.internal:443", Rule: "default-deny", Reason: "not allowed"}
			appendPast(t, env, l, deny, attack)
			if err := l.Append(ctx, sampleEvent(1)); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			denies, err := Query(env.path, Filter{Type: NetworkDeny})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, e := range denies {
				found = found || e.Resource == deny.Resource
			}
			if !attack {
				if !found {
					t.Fatal("control: the network_deny is not in the log")
				}
				return
			}
			alerts, err := Query(env.path, Filter{Type: Alert})
			if err != nil {
				t.Fatal(err)
			}
			rep := env.verify(t)
			if !found && len(alerts) == 0 && rep.OK && len(rep.Warnings) == 0 {
				t.Fatalf("DROPPED: the network_deny is not in the log, no alert says a write failed, and Verify reports it intact with no warning: %+v", rep)
			}
		})
	}
}

// TestWriteFailedAtClose: events whose writes failed, with no write after
// them that succeeds, are still owed their audit.write_failed alert: Close
// writes it. The control: a writer with no failed write logs none.
func TestWriteFailedAtClose(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(map[bool]string{false: "control: nothing failed", true: "a write failed, then Close"}[fail], func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 3, Options{})
			ctx := context.Background()
			l := env.open(t, Options{})
			if err := l.Append(ctx, sampleEvent(0)); err != nil {
				t.Fatal(err)
			}
			if fail {
				appendPast(t, env, l, sampleEvent(1), true)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			as := alertsOf(t, env.path, ruleWriteFailed)
			if fail != (len(as) == 1) {
				t.Fatalf("write_failed alerts %+v (a write failed: %v)", as, fail)
			}
			if rep := env.verify(t); !rep.OK || fail != (len(rep.Warnings) == 1) {
				t.Fatalf("report %+v", rep)
			}
		})
	}
}

// appendPast appends e; with badLine, while a line that is no entry ends
// the log, so that the append must fail, and then puts back exactly what
// the writer last saw.
func appendPast(t *testing.T, env testEnv, l *Log, e Event, badLine bool) {
	t.Helper()
	if !badLine {
		if err := l.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
		return
	}
	before, err := os.ReadFile(env.path)
	if err != nil {
		t.Fatal(err)
	}
	appendRaw(t, env.path, "x\n")
	if err := l.Append(context.Background(), e); err == nil {
		t.Fatal("the append after a bad line succeeded; the test's premise is gone")
	}
	if err := os.WriteFile(env.path, before, 0o600); err != nil {
		t.Fatal(err)
	}
}
