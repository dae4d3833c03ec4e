package audit

import (
	"context"
	"os"
	"testing"
)

// appendRaw appends bytes to the log as anyone who can write it can.
func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestRedteam8WitnessBlindedByAFailedWrite: a writer has the log open and
// has appended entries 6–8 (not signed yet; the last checkpoint signed
// 1–5). The attacker appends one line that is not an entry: the writer's
// next Append fails (ErrCorrupt: it cannot read the last entry), and the
// failed commit sets l.known = -1, which makes changedUnder skip its check
// on the next refresh. The attacker then cuts the log back to entry 5,
// removing the writer's own entries 6–8 (say, the network_deny events it
// wants gone) along with the bad line. The writer's next Append continues
// the chain from entry 5 with no audit.changed_under_writer alert, Close
// signs it, and Verify reports the log intact with no warning.
//
// The control: the same cut without the bad line first is witnessed and
// Verify reports the log tampered with.
//
// Fixed: a failed write marks the writer stale, keeping the last good
// view of the file, which changedUnder checks the file against.
func TestRedteam8WitnessBlindedByAFailedWrite(t *testing.T) {
	for _, blind := range []bool{false, true} {
		name := "control: entries cut under the writer"
		if blind {
			name = "entries cut under the writer after a bad line made one write fail"
		}
		t.Run(name, func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 5, Options{})
			signed, err := os.ReadFile(env.path)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			l := env.open(t, Options{})
			for i := range 3 {
				if err := l.Append(ctx, sampleEvent(i)); err != nil {
					t.Fatal(err)
				}
			}
			if blind {
				appendRaw(t, env.path, "not an audit entry\n")
				if err := l.Append(ctx, sampleEvent(3)); err == nil {
					t.Fatal("the append after a bad line succeeded; the test's premise is gone")
				}
			}
			// Cut the writer's entries 6–8 (and the bad line) away.
			if err := os.WriteFile(env.path, signed, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := l.Append(ctx, sampleEvent(4)); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			rep := env.verify(t)
			as := alertsOf(t, env.path, ruleChangedUnderWriter)
			if rep.OK || rep.Kind != KindWitnessed || len(as) != 1 {
				t.Fatalf("LAUNDERED: the writer's entries 6–8 were removed under it with no alert: alerts %+v, report %+v", as, rep)
			}
		})
	}
}
