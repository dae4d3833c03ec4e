package audit

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testEnv is a log path and a state directory of one test.
type testEnv struct {
	dir, state, path string
}

func newEnv(t testing.TB) testEnv {
	t.Helper()
	dir := t.TempDir()
	return testEnv{dir: dir, state: filepath.Join(dir, "state"), path: filepath.Join(dir, "logs", "agent.log")}
}

func (e testEnv) open(t testing.TB, opts Options) *Log {
	t.Helper()
	if opts.StateDir == "" {
		opts.StateDir = e.state
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	l, err := Open(e.path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return l
}

// sampleEvent returns the i-th event of a test log; fields vary with i.
func sampleEvent(i int) Event {
	types := []string{AgentStart, CommandExec, NetworkDeny, FilesystemDeny, ToolAllow, CommandRefused}
	return Event{
		AgentID:   fmt.Sprintf("id%d", i%3),
		AgentName: []string{"alpha", "beta", "gamma"}[i%3],
		EventType: types[i%len(types)],
		Allowed:   i%2 == 0,
		Resource:  fmt.Sprintf("resource-%d", i),
		Rule:      "rule-" + fmt.Sprint(i%4),
		Reason:    "because",
		Details:   map[string]any{"i": i, "ok": i%2 == 0},
	}
}

// write appends n sample events in one Open/Close cycle.
func (e testEnv) write(t testing.TB, n int, opts Options) {
	t.Helper()
	l := e.open(t, opts)
	for i := range n {
		if err := l.Append(context.Background(), sampleEvent(i)); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func (e testEnv) verify(t testing.TB) Report {
	t.Helper()
	rep, err := Verify(e.path, VerifyOptions{StateDir: e.state})
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return rep
}

// lines returns the lines of a file without their newlines.
func lines(t testing.TB, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ls := bytes.Split(bytes.TrimSuffix(b, []byte{'\n'}), []byte{'\n'})
	if len(ls) == 1 && len(ls[0]) == 0 {
		return nil
	}
	return ls
}

func writeLines(t testing.TB, path string, ls [][]byte) {
	t.Helper()
	var b []byte
	for _, l := range ls {
		b = append(append(b, l...), '\n')
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// rehash sets the hash member of a line to the hash of its content, and
// optionally its id and prev_hash first, as an attacker without the key can.
func rehash(t testing.TB, line []byte, id uint64, prev string) ([]byte, string) {
	t.Helper()
	v, err := parseObject(line)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v.obj {
		switch v.obj[i].key {
		case "id":
			if id > 0 {
				v.obj[i].val = numValue(fmt.Sprint(id))
			}
		case "prev_hash":
			if prev != "" {
				v.obj[i].val = strValue(prev)
			}
		}
	}
	h, _ := entryHash(v.obj, nil)
	for i := range v.obj {
		if v.obj[i].key == "hash" {
			v.obj[i].val = strValue(h)
		}
	}
	return appendJSON(nil, v), h
}

// setMember replaces the JSON text of one member of a line.
func setMember(t testing.TB, line []byte, key string, val value) []byte {
	t.Helper()
	v, err := parseObject(line)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for i := range v.obj {
		if v.obj[i].key == key {
			v.obj[i].val = val
			found = true
		}
	}
	if !found {
		v.obj = append(v.obj, member{key, val})
	}
	return appendJSON(nil, v)
}

// rechainFrom re-chains lines[from:] (0-based) onto the entry before it,
// renumbering ids, as an attacker without the key can.
func rechainFrom(t testing.TB, ls [][]byte, from int) [][]byte {
	t.Helper()
	prev := Genesis
	if from > 0 {
		v, err := parseObject(ls[from-1])
		if err != nil {
			t.Fatal(err)
		}
		h, _ := v.get("hash")
		prev = h.str
	}
	out := append([][]byte(nil), ls[:from]...)
	for i := from; i < len(ls); i++ {
		var l []byte
		l, prev = rehash(t, ls[i], uint64(i+1), prev)
		out = append(out, l)
	}
	return out
}

// testLogger sends a Log's warnings to the test's log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tbWriter{t}, nil))
}

type tbWriter struct{ t testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

var fixedTime = time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
