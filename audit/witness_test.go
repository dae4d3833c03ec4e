package audit

import (
	"context"
	"os"
	"strings"
	"testing"
)

// alertsOf returns the alert events of rule in the log at path.
func alertsOf(t *testing.T, path, rule string) []Event {
	t.Helper()
	evs, err := Query(path, Filter{Type: Alert})
	if err != nil {
		t.Fatal(err)
	}
	var out []Event
	for _, e := range evs {
		if e.Rule == rule {
			out = append(out, e)
		}
	}
	return out
}

// forgeEntry appends an entry chained onto the log's last one, as anyone
// who can write the file can without the key.
func forgeEntry(t *testing.T, path string) {
	t.Helper()
	ls := lines(t, path)
	last := ls[len(ls)-1]
	v, err := parseObject(last)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := v.get("hash")
	forged := setMember(t, last, "event_type", strValue(AgentExit))
	forged = setMember(t, forged, "reason", strValue("exited code 0: nothing happened here"))
	forged, _ = rehash(t, forged, uint64(len(ls)+1), head.str)
	writeLines(t, path, append(ls, forged))
}

// TestUnsignedTailWitnessed: an entry chained onto a log its writer closed
// and signed verifies as "not signed yet", and the next writer's
// checkpoint will sign it. The next writer, alone with the log, says in
// the log that no writer signed it, and Verify repeats it ever after. A
// writer that finds the log held by another writer says nothing: that
// writer's entries are not signed until it signs them.
func TestUnsignedTailWitnessed(t *testing.T) {
	t.Run("forged after close", func(t *testing.T) {
		env := newEnv(t)
		env.write(t, 5, Options{})
		forgeEntry(t, env.path)
		env.write(t, 2, Options{})
		rep := env.verify(t)
		if !rep.OK || rep.Entries != 9 || rep.Signed != 9 {
			t.Fatalf("report %+v; want intact, 9 entries (5, the forged one, the alert, 2), all signed", rep)
		}
		as := alertsOf(t, env.path, ruleUnsignedTail)
		if len(as) != 1 || as[0].ID != 7 || !strings.HasPrefix(as[0].Reason, "entry 6 was not signed by a writer") ||
			!strings.Contains(as[0].Reason, "the last checkpoint signed entries 1–5") {
			t.Fatalf("alerts %+v; want one at entry 7 naming entry 6", as)
		}
		if len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], "entry 7 is an alert: entry 6 was not signed") {
			t.Fatalf("warnings %q; want Verify to repeat the alert", rep.Warnings)
		}
	})
	t.Run("no checkpoint at all", func(t *testing.T) {
		env := newEnv(t)
		env.write(t, 3, Options{})
		if err := os.RemoveAll(env.state + "/audit/checkpoints"); err != nil {
			t.Fatal(err)
		}
		env.write(t, 1, Options{})
		as := alertsOf(t, env.path, ruleUnsignedTail)
		if len(as) != 1 || !strings.HasPrefix(as[0].Reason, "entries 1–3 were not signed by a writer: no writer had the log open and no checkpoint signed any entry") {
			t.Fatalf("alerts %+v; want one naming entries 1–3", as)
		}
	})
	t.Run("control: runs in turn", func(t *testing.T) {
		env := newEnv(t)
		for range 3 {
			env.write(t, 4, Options{CheckpointEvery: 3})
		}
		if as := alertsOf(t, env.path, ruleUnsignedTail); len(as) != 0 {
			t.Fatalf("alerts %+v after runs that each signed their entries", as)
		}
		if rep := env.verify(t); !rep.OK || rep.Entries != 12 || rep.Signed != 12 || len(rep.Warnings) != 0 {
			t.Fatalf("report %+v", rep)
		}
	})
	t.Run("control: another writer holds the log", func(t *testing.T) {
		env := newEnv(t)
		env.write(t, 2, Options{})
		a := env.open(t, Options{})
		for i := range 3 {
			if err := a.Append(context.Background(), sampleEvent(i)); err != nil {
				t.Fatal(err)
			}
		}
		// a's entries 3–5 are not signed yet: b must not call them so.
		env.write(t, 1, Options{})
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if as := alertsOf(t, env.path, ruleUnsignedTail); len(as) != 0 {
			t.Fatalf("alerts %+v about a running writer's entries", as)
		}
		if rep := env.verify(t); !rep.OK || rep.Entries != 6 || rep.Signed != 6 {
			t.Fatalf("report %+v", rep)
		}
	})
}

// TestChangedUnderWriterWitnessed rewrites, re-chains or shortens a log
// while a writer has it open, before any checkpoint: without the writer's
// word the result would be signed at Close and verify. The writer sees
// that the last entry it wrote is not where it left it and says so; Verify
// reports the log tampered with. Other writers' appends and the repair of
// a line cut short change only the end, and raise nothing.
func TestChangedUnderWriterWitnessed(t *testing.T) {
	tamper := map[string]func(t *testing.T, path string){
		"rewritten and re-chained": func(t *testing.T, path string) {
			ls := lines(t, path)
			for i := range ls {
				ls[i] = setMember(t, ls[i], "resource", strValue("harmless"))
			}
			writeLines(t, path, rechainFrom(t, ls, 0))
		},
		"shortened": func(t *testing.T, path string) {
			writeLines(t, path, lines(t, path)[:3])
		},
		"last entry re-chained, longer log": func(t *testing.T, path string) {
			ls := lines(t, path)
			ls[4] = setMember(t, ls[4], "resource", strValue("elsewhere"))
			ls = rechainFrom(t, ls, 4)
			writeLines(t, path, ls)
			forgeEntry(t, path)
		},
	}
	for name, fn := range tamper {
		t.Run(name, func(t *testing.T) {
			env := newEnv(t)
			l := env.open(t, Options{})
			for i := range 5 {
				if err := l.Append(context.Background(), sampleEvent(i)); err != nil {
					t.Fatal(err)
				}
			}
			fn(t, env.path)
			if err := l.Append(context.Background(), sampleEvent(5)); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			rep := env.verify(t)
			as := alertsOf(t, env.path, ruleChangedUnderWriter)
			if rep.OK || rep.Kind != KindWitnessed || len(as) != 1 || rep.FirstBad != int(as[0].ID) ||
				!strings.Contains(rep.Problem, "a writer's alert that the log changed under it") {
				t.Fatalf("report %+v, alerts %+v; want the log tampered with (witnessed) at the writer's alert", rep, as)
			}
		})
	}
	t.Run("control: other writers and a torn tail", func(t *testing.T) {
		env := newEnv(t)
		l := env.open(t, Options{})
		ctx := context.Background()
		if err := l.Append(ctx, sampleEvent(0)); err != nil {
			t.Fatal(err)
		}
		env.write(t, 3, Options{})
		// A writer that crashed mid-append leaves half a line.
		f, err := os.OpenFile(env.path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(`{"id":5,"hash":"ab`); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := l.Append(ctx, sampleEvent(1)); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if as := alertsOf(t, env.path, ruleChangedUnderWriter); len(as) != 0 {
			t.Fatalf("alerts %+v", as)
		}
		if len(alertsOf(t, env.path, ruleTornTail)) != 1 {
			t.Fatal("the torn tail's repair was not logged")
		}
		if rep := env.verify(t); !rep.OK || rep.Entries != 6 || len(rep.Warnings) != 0 {
			t.Fatalf("report %+v", rep)
		}
	})
}
