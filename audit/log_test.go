package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Child processes: the test binary re-executed with envChild set appends
// events to a log and exits (or appends until it is killed).
const (
	envChild = "AGENTBOX_AUDIT_TEST_CHILD" // "append" or "forever"
	envLog   = "AGENTBOX_AUDIT_TEST_LOG"
	envState = "AGENTBOX_AUDIT_TEST_STATE"
	envName  = "AGENTBOX_AUDIT_TEST_NAME"
	envCount = "AGENTBOX_AUDIT_TEST_COUNT"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envChild); mode != "" {
		if err := childMain(mode); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childMain appends events from several goroutines, so that batches of
// different processes interleave.
func childMain(mode string) error {
	n, _ := strconv.Atoi(os.Getenv(envCount))
	name := os.Getenv(envName)
	l, err := Open(os.Getenv(envLog), Options{StateDir: os.Getenv(envState), CheckpointEvery: 50})
	if err != nil {
		return err
	}
	const writers = 4
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; mode == "forever" || i < n/writers; i++ {
				e := Event{AgentName: name, AgentID: strconv.Itoa(os.Getpid()), EventType: CommandExec, Allowed: true,
					Resource: fmt.Sprintf("w%d-%d", w, i), Details: map[string]any{"writer": w, "i": i}}
				if err := l.Append(context.Background(), e); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return errors.Join(<-errs, l.Close())
}

func childCmd(t *testing.T, env testEnv, mode, name string, n int) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+mode, envLog+"="+env.path, envState+"="+env.state,
		envName+"="+name, envCount+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	return cmd
}

func TestRoundTrip(t *testing.T) {
	env := newEnv(t)
	l := env.open(t, Options{})
	in := Event{
		Timestamp: fixedTime, AgentID: "a1b2", AgentName: "email-sorter", EventType: AgentStart, Allowed: true,
		Resource: "/bin/agent", Rule: "manifest", Reason: "started\n\"quoted\" \x01 ✓ \u2028",
		Details: map[string]any{
			"runtime": "native", "pid": 4242, "big": uint64(math.MaxUint64), "ratio": 0.25, "tiny": 1e-9,
			"layers": []string{"landlock", "seccomp"}, "limits": map[string]any{"mem": int64(256), "dur": 30 * time.Minute},
			"nothing": nil, "num": json.Number("12.50"),
		},
	}
	got, err := l.Commit(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != 1 || got.PrevHash != Genesis || len(got.Hash) != 64 || !got.Timestamp.Equal(fixedTime) {
		t.Fatalf("Commit returned %+v", got)
	}
	second, err := l.Commit(t.Context(), Event{EventType: AgentExit})
	if err != nil {
		t.Fatal(err)
	}
	if second.ID != 2 || second.PrevHash != got.Hash || second.Timestamp.IsZero() {
		t.Fatalf("second: %+v", second)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	evs, err := Query(env.path, Filter{})
	if err != nil || len(evs) != 2 {
		t.Fatalf("Query: %v, %v", evs, err)
	}
	e := evs[0]
	if e.Hash != got.Hash || e.AgentName != in.AgentName || e.Reason != in.Reason || !e.Allowed || e.EventType != AgentStart || !e.Timestamp.Equal(fixedTime) {
		t.Fatalf("read back %+v", e)
	}
	want := map[string]any{
		"runtime": "native", "pid": json.Number("4242"), "big": json.Number("18446744073709551615"), "ratio": json.Number("0.25"),
		"tiny": json.Number("1e-09"), "layers": []any{"landlock", "seccomp"},
		"limits": map[string]any{"mem": json.Number("256"), "dur": "30m0s"}, "nothing": nil, "num": json.Number("12.50"),
	}
	if a, b := fmt.Sprint(e.Details), fmt.Sprint(want); a != b {
		t.Fatalf("details:\n got %s\nwant %s", a, b)
	}
	// Each event is one line.
	if n := len(lines(t, env.path)); n != 2 {
		t.Fatalf("%d lines", n)
	}
}

func TestAppendRejectsBadEvents(t *testing.T) {
	env := newEnv(t)
	l := env.open(t, Options{})
	defer l.Close()
	for name, e := range map[string]Event{
		"no type":      {},
		"bad type":     {EventType: "Agent Start"},
		"nan":          {EventType: Alert, Details: map[string]any{"x": math.NaN()}},
		"unsupported":  {EventType: Alert, Details: map[string]any{"x": struct{}{}}},
		"bad number":   {EventType: Alert, Details: map[string]any{"x": json.Number("1e")}},
		"too deep":     {EventType: Alert, Details: nested(40)},
		"dup key utf8": {EventType: Alert, Details: map[string]any{"\xff": 1, "\xfe": 2}},
	} {
		if err := l.Append(t.Context(), e); !errors.Is(err, ErrInvalidEvent) {
			t.Errorf("%s: err = %v, want ErrInvalidEvent", name, err)
		}
	}
	big := Event{EventType: Alert, Reason: strings.Repeat("x", MaxEntryBytes)}
	if err := l.Append(t.Context(), big); !errors.Is(err, ErrInvalidEvent) || !strings.Contains(err.Error(), fmt.Sprintf("larger than %d", MaxEntryBytes)) || strings.Contains(err.Error(), "of 0 bytes") {
		t.Errorf("too large: err = %v", err)
	}
	// A rejected event leaves no gap in the chain.
	if err := l.Append(t.Context(), Event{EventType: Alert}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := env.verify(t); !rep.OK || rep.Entries != 1 {
		t.Fatalf("%+v", rep)
	}
}

func nested(depth int) map[string]any {
	m := map[string]any{}
	for range depth {
		m = map[string]any{"x": m}
	}
	return m
}

func TestChainAcrossRuns(t *testing.T) {
	env := newEnv(t)
	env.write(t, 5, Options{})
	env.write(t, 7, Options{})
	rep := env.verify(t)
	if !rep.OK || rep.Entries != 12 || rep.Checkpoints != 2 || rep.Signed != 12 {
		t.Fatalf("%+v", rep)
	}
	evs, _ := Query(env.path, Filter{})
	for i, e := range evs {
		if e.ID != uint64(i+1) {
			t.Fatalf("entry %d has id %d", i+1, e.ID)
		}
	}
	if evs[5].PrevHash != evs[4].Hash {
		t.Fatal("second run does not continue the chain")
	}
}

func TestConcurrentAppendsInProcess(t *testing.T) {
	env := newEnv(t)
	// Two Logs on one file (two open file descriptions, like two processes)
	// and many goroutines on each.
	logs := []*Log{env.open(t, Options{CheckpointEvery: 64}), env.open(t, Options{CheckpointEvery: 64, Sync: SyncNone})}
	const goroutines, each = 16, 50
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := logs[g%2]
			for i := range each {
				if err := l.Append(t.Context(), Event{EventType: ToolAllow, AgentName: fmt.Sprint(g), Resource: fmt.Sprint(i)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, l := range logs {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	rep := env.verify(t)
	if !rep.OK || rep.Entries != goroutines*each || rep.Signed != goroutines*each {
		t.Fatalf("%+v", rep)
	}
	assertPerAgent(t, env, goroutines, each)
}

// assertPerAgent checks that every agent's events are all there, in the
// order each appended them.
func assertPerAgent(t *testing.T, env testEnv, agents, each int) {
	t.Helper()
	evs, err := Query(env.path, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]int{}
	for _, e := range evs {
		next[e.AgentName]++
	}
	if len(next) != agents {
		t.Fatalf("%d agents in the log, want %d", len(next), agents)
	}
	for a, n := range next {
		if n != each {
			t.Fatalf("agent %s has %d events, want %d", a, n, each)
		}
	}
}

func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	env := newEnv(t)
	env.write(t, 1, Options{}) // the key exists before the children race
	const procs, each = 4, 200
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := childCmd(t, env, "append", fmt.Sprintf("proc%d", p), each)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
	}
	rep := env.verify(t)
	if !rep.OK || rep.Entries != 1+procs*each || rep.Signed != uint64(rep.Entries) {
		t.Fatalf("%+v", rep)
	}
	evs, _ := Query(env.path, Filter{Type: CommandExec})
	counts := map[string]int{}
	switches := 0
	for i, e := range evs {
		counts[e.AgentName]++
		if i > 0 && e.AgentName != evs[i-1].AgentName {
			switches++
		}
	}
	for p := range procs {
		if counts[fmt.Sprintf("proc%d", p)] != each {
			t.Fatalf("counts %v", counts)
		}
	}
	t.Logf("%d entries, %d changes of writer process along the chain, %d checkpoints", rep.Entries, switches, rep.Checkpoints)
}

// A writer SIGKILLed while appending leaves a log that verifies up to its
// last complete entry, and the next writer continues the chain.
func TestCrashMidAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	env := newEnv(t)
	env.write(t, 1, Options{})
	cmd := childCmd(t, env, "forever", "crasher", 0)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		fi, err := os.Stat(env.path)
		if err == nil && fi.Size() > 64<<10 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("child wrote too little")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("child exited normally")
	}
	rep := env.verify(t)
	if !rep.OK || rep.Entries < 100 {
		t.Fatalf("after SIGKILL: %+v", rep)
	}
	t.Logf("after SIGKILL: %d entries, %d signed, %d torn bytes", rep.Entries, rep.Signed, rep.TornBytes)
	env.write(t, 3, Options{})
	rep2 := env.verify(t)
	if !rep2.OK || rep2.Entries < rep.Entries+3 || rep2.Signed != uint64(rep2.Entries) {
		t.Fatalf("after the next run: %+v", rep2)
	}
}

func TestSyncModes(t *testing.T) {
	for _, mode := range []SyncMode{SyncGroup, SyncEach, SyncNone} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			env := newEnv(t)
			l := env.open(t, Options{Sync: mode})
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 10 {
						if err := l.Append(t.Context(), Event{EventType: Alert, AgentName: fmt.Sprint(g), Resource: fmt.Sprint(i)}); err != nil {
							t.Error(err)
						}
					}
				}()
			}
			wg.Wait()
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if rep := env.verify(t); !rep.OK || rep.Entries != 40 {
				t.Fatalf("%+v", rep)
			}
			assertPerAgent(t, env, 4, 10)
		})
	}
}

func TestAppendAsyncFlushClose(t *testing.T) {
	env := newEnv(t)
	l := env.open(t, Options{QueueSize: 8})
	for i := range 100 {
		if err := l.AppendAsync(sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := len(lines(t, env.path)); n != 100 {
		t.Fatalf("after Flush: %d lines", n)
	}
	for i := range 50 {
		if err := l.AppendAsync(sampleEvent(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := env.verify(t); !rep.OK || rep.Entries != 150 || rep.Signed != 150 {
		t.Fatalf("after Close: %+v", rep)
	}
	if err := l.Append(t.Context(), sampleEvent(0)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	if err := l.AppendAsync(sampleEvent(0)); !errors.Is(err, ErrClosed) {
		t.Fatalf("AppendAsync after Close: %v", err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Close(); err != nil {
				t.Errorf("another Close: %v", err)
			}
		}()
	}
	wg.Wait()
	if l.Err() != nil {
		t.Fatal(l.Err())
	}
}

func TestAppendCanceledContext(t *testing.T) {
	env := newEnv(t)
	l := env.open(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	// The event may or may not be written, but Append does not wait.
	if err := l.Append(ctx, sampleEvent(0)); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := env.verify(t); !rep.OK {
		t.Fatalf("%+v", rep)
	}
}

func TestOpenRefusesCorruptLog(t *testing.T) {
	env := newEnv(t)
	env.write(t, 2, Options{})
	f, _ := os.OpenFile(env.path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("this is not an entry\n")
	f.Close()
	if _, err := Open(env.path, Options{StateDir: env.state}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open: err = %v, want ErrCorrupt", err)
	}
}

// A log path (or its checkpoint file) that is a symlink is never written
// through: a sandboxed agent that can write the log's directory must not be
// able to make agentbox append to another file.
func TestOpenRefusesSymlinks(t *testing.T) {
	env := newEnv(t)
	if err := os.MkdirAll(filepath.Dir(env.path), 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(env.dir, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, env.path); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(env.path, Options{StateDir: env.state}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Open through a symlink: %v", err)
	}
	if err := os.Remove(env.path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, env.path+CheckpointSuffix); err != nil {
		t.Fatal(err)
	}
	l := env.open(t, Options{})
	if err := l.Append(t.Context(), sampleEvent(0)); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Close with a symlinked checkpoint file: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Fatalf("victim written: %q", b)
	}
	// The state-directory copy was still written: the log verifies.
	if rep := env.verify(t); !rep.OK || rep.Checkpoints != 1 {
		t.Fatalf("%+v", rep)
	}
}

// Appends racing with Close either land (and are on disk and signed) or fail
// with ErrClosed; nothing is lost or half-written.
func TestCloseRacingAppends(t *testing.T) {
	env := newEnv(t)
	l := env.open(t, Options{})
	var ok, wg sync.WaitGroup
	var mu sync.Mutex
	landed := 0
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				err := l.Append(t.Context(), Event{EventType: Alert, AgentName: fmt.Sprint(g), Resource: fmt.Sprint(i)})
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				landed++
				mu.Unlock()
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	for range 2 {
		ok.Add(1)
		go func() {
			defer ok.Done()
			if err := l.Close(); err != nil {
				t.Error(err)
			}
		}()
	}
	ok.Wait()
	wg.Wait()
	rep := env.verify(t)
	if !rep.OK || rep.Entries != landed || rep.Signed != uint64(landed) {
		t.Fatalf("%d appends landed; %+v", landed, rep)
	}
}
