package audit

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// forgeAlerts chains n alert entries of rule onto the log, as anyone who
// can write the file can without the key.
func forgeAlerts(t *testing.T, path, rule string, n int) {
	t.Helper()
	ls := lines(t, path)
	for range n {
		last := ls[len(ls)-1]
		v, err := parseObject(last)
		if err != nil {
			t.Fatal(err)
		}
		head, _ := v.get("hash")
		a := setMember(t, last, "event_type", strValue(Alert))
		a = setMember(t, a, "rule", strValue(rule))
		a = setMember(t, a, "reason", strValue("routine: the nightly job's entries were signed by the next run"))
		a, _ = rehash(t, a, uint64(len(ls)+1), head.str)
		ls = append(ls, a)
	}
	writeLines(t, path, ls)
}

// TestRedteam8ChangedUnderWriterPastTheWitnessCap: Verify reports only
// the first maxWitnesses (16) witness alerts of a log; the rest, whatever
// their rule, become one warning ("N more alerts like these"). While a
// writer has the log open, the attacker chains 16 audit.unsigned_tail
// alerts onto it (taken as that writer's, the README's known limit),
// then cuts away the writer's last entry. The writer witnesses the cut and
// logs audit.changed_under_writer, but it is the 17th witness: Verify
// reports the log intact (OK, exit 0), with warnings the attacker wrote,
// instead of tampered (witnessed).
//
// The control: with 15 forged alerts the writer's alert is the 16th and
// Verify reports the log tampered with.
//
// Fixed: Verify keeps the first changed_under_writer alert past the cap.
func TestRedteam8ChangedUnderWriterPastTheWitnessCap(t *testing.T) {
	for _, forged := range []int{maxWitnesses - 1, maxWitnesses} {
		t.Run(fmt.Sprintf("%d forged alerts before the writer's", forged), func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 5, Options{})
			ctx := context.Background()
			l := env.open(t, Options{})
			for i := range 2 {
				if err := l.Append(ctx, sampleEvent(i)); err != nil {
					t.Fatal(err)
				}
			}
			forgeAlerts(t, env.path, ruleUnsignedTail, forged)
			if err := l.Append(ctx, sampleEvent(2)); err != nil {
				t.Fatal(err)
			}
			// Cut the writer's last entry away.
			ls := lines(t, env.path)
			writeLines(t, env.path, ls[:len(ls)-1])
			if err := l.Append(ctx, sampleEvent(3)); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if as := alertsOf(t, env.path, ruleChangedUnderWriter); len(as) != 1 {
				t.Fatalf("the writer did not witness the cut: alerts %+v", as)
			}
			rep := env.verify(t)
			if rep.OK || rep.Kind != KindWitnessed {
				t.Fatalf("SUPPRESSED: the writer's audit.changed_under_writer alert did not make Verify report tampering: OK %v, kind %q, warnings:\n%s",
					rep.OK, rep.Kind, strings.Join(rep.Warnings, "\n"))
			}
		})
	}
}
