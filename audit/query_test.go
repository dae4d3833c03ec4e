package audit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestQuery(t *testing.T) {
	env := newEnv(t)
	l := env.open(t, Options{})
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	// 12 events, one a minute: agents alpha/beta/gamma in turn, every
	// third one denied, types cycling through three.
	types := []string{CommandExec, NetworkDeny, ToolAllow}
	for i := range 12 {
		e := Event{
			Timestamp: base.Add(time.Duration(i) * time.Minute),
			AgentName: []string{"alpha", "beta", "gamma"}[i%3], AgentID: []string{"a1", "b2", "c3"}[i%3],
			EventType: types[i%3], Allowed: i%3 != 1, Resource: string(rune('a' + i)),
		}
		if err := l.Append(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    Filter
		want string // resources of the result, in order
	}{
		{"all", Filter{}, "abcdefghijkl"},
		{"deny", Filter{DenyOnly: true}, "behk"},
		{"agent name", Filter{Agent: "gamma"}, "cfil"},
		{"agent id", Filter{Agent: "a1"}, "adgj"},
		{"type", Filter{Type: ToolAllow}, "cfil"},
		{"since", Filter{Since: base.Add(9 * time.Minute)}, "jkl"},
		{"limit keeps the most recent", Filter{Limit: 3}, "jkl"},
		{"limit larger than matches", Filter{Agent: "beta", Limit: 10}, "behk"},
		{"combined", Filter{Agent: "beta", DenyOnly: true, Since: base.Add(2 * time.Minute), Limit: 2}, "hk"},
		{"no match", Filter{Type: AgentKilled}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := Query(env.path, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, e := range evs {
				got += e.Resource
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestQueryErrors(t *testing.T) {
	env := newEnv(t)
	if _, err := Query(env.path, Filter{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	env.write(t, 3, Options{})
	ls := lines(t, env.path)
	ls[1] = []byte(`{"id":2}`)
	writeLines(t, env.path, ls)
	evs, err := Query(env.path, Filter{})
	var bad *BadLinesError
	if !errors.Is(err, ErrBadLine) || !errors.As(err, &bad) || len(evs) != 2 {
		t.Fatalf("a malformed line in the middle: %d events, %v; want 2 and ErrBadLine", len(evs), err)
	}
	// A directory is named once, and said to be one.
	dir := filepath.Dir(env.path)
	for name, f := range map[string]func() error{
		"Query":  func() error { _, err := Query(dir, Filter{}); return err },
		"Verify": func() error { _, err := Verify(dir, VerifyOptions{StateDir: env.state}); return err },
	} {
		err := f()
		if err == nil || strings.Count(err.Error(), dir) != 1 || !strings.Contains(err.Error(), "is a directory, not an audit log file") {
			t.Fatalf("%s of a directory: %v", name, err)
		}
	}
}

// Lines that are not entries are skipped and reported; the others are still
// returned, in order.
func TestQuerySkipsBadLines(t *testing.T) {
	many := make([][]byte, 150)
	for i := range many {
		many[i] = []byte("garbage")
	}
	tests := []struct {
		name     string
		edit     func(ls [][]byte) [][]byte
		events   int
		badLines []int // the lines reported one by one
		count    int
		inErr    string
	}{
		{"garbage appended", func(ls [][]byte) [][]byte { return append(ls, []byte("garbage")) },
			5, []int{6}, 1, "line 6 is not an audit entry: not a JSON object"},
		{"blank line in the middle", func(ls [][]byte) [][]byte { return append(ls[:2:2], append([][]byte{nil}, ls[2:]...)...) },
			5, []int{3}, 1, "line 3 is not an audit entry: blank line; run agentbox verify"},
		{"two bad lines", func(ls [][]byte) [][]byte {
			return append(append(ls[:1:1], []byte("  "), []byte(`{"id":2}`)), ls[1:]...)
		}, 5, []int{2, 3}, 2, "line 2 is not an audit entry: blank line (and 1 more)"},
		{"many bad lines", func(ls [][]byte) [][]byte { return append(ls, many...) },
			5, nil, 150, "(and 149 more)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			env.write(t, 5, Options{})
			writeLines(t, env.path, tc.edit(lines(t, env.path)))
			evs, err := Query(env.path, Filter{})
			var bad *BadLinesError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), tc.inErr) {
				t.Fatalf("err = %v, want a BadLinesError containing %q", err, tc.inErr)
			}
			if len(evs) != tc.events || evs[0].ID != 1 || evs[len(evs)-1].ID != 5 {
				t.Fatalf("%d events, want %d: %+v", len(evs), tc.events, evs)
			}
			if bad.Count != tc.count || len(bad.Lines) != min(tc.count, maxBadLines) {
				t.Fatalf("count %d, %d lines; want %d", bad.Count, len(bad.Lines), tc.count)
			}
			for i, n := range tc.badLines {
				if bad.Lines[i].Line != n {
					t.Fatalf("bad line %d is line %d, want %d", i, bad.Lines[i].Line, n)
				}
			}
		})
	}
}

// A last line lacking its newline is listed only when Verify counts it:
// when it is the next entry of the chain, hash right and linked.
func TestQueryUnterminatedLastLine(t *testing.T) {
	env := newEnv(t)
	env.write(t, 3, Options{})
	ls := lines(t, env.path)
	v, err := parseObject(ls[2])
	if err != nil {
		t.Fatal(err)
	}
	third, err := entryFields(v)
	if err != nil {
		t.Fatal(err)
	}
	linked, _ := rehash(t, bytes.Clone(ls[2]), 4, third.hash)
	unlinked, _ := rehash(t, bytes.Clone(ls[2]), 4, Genesis)
	edited := setMember(t, bytes.Clone(linked), "reason", strValue("edited"))
	for _, tc := range []struct {
		name   string
		tail   []byte
		events int
	}{
		{"a whole entry", linked, 4},
		{"an entry that does not link", unlinked, 3},
		{"an entry with the wrong hash", edited, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := append(bytes.Join(ls, []byte{'\n'}), '\n')
			if err := os.WriteFile(env.path, append(head, tc.tail...), 0o600); err != nil {
				t.Fatal(err)
			}
			evs, err := Query(env.path, Filter{})
			rep := env.verify(t)
			if err != nil || len(evs) != tc.events || !rep.OK || rep.Entries != tc.events {
				t.Fatalf("Query: %d events, %v; verify: %d entries, ok %v; want %d", len(evs), err, rep.Entries, rep.OK, tc.events)
			}
		})
	}
}
