//go:build linux

package agentbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/nomount"
)

// Red team 27 (lifecycle): Manager.Close while a Process or a wrapped cmd
// still runs a hostile tree (a background child, a setsid'd double fork,
// stopped processes), Wrap's cleanup called at every moment, and Close
// while a warm init starts.

const rt27ReducedEnv = "AGENTBOX_RT27_LIFECYCLE_REDUCED"

func init() {
	if v := os.Getenv(rt27ReducedEnv); v != "" {
		os.Exit(rt27ReducedChild(v))
	}
}

// rt27Tree is a tree that tries to outlive its sandbox: a plain
// background child, a setsid'd double fork, a stopped child and a
// stopped orphan. Every process carries marker in its argv, so the host
// finds them whatever pid namespace they are in. It writes "ready" into
// dir once all are started.
func rt27Tree(marker, dir string) string {
	q := func(s string) string { return "'" + s + "'" }
	return strings.Join([]string{
		`sh -c 'sleep 300; true' ` + q(marker+"-bg") + ` &`,
		`setsid sh -c '(sh -c "sleep 300; true" ` + marker + `-dbl &) ; true' ` + q(marker+"-sid") + ` &`,
		`sh -c 'kill -STOP $$; sleep 300' ` + q(marker+"-stopped") + ` &`,
		`(sh -c 'kill -STOP $$; sleep 300' ` + q(marker+"-stoporphan") + ` &) &`,
		`sleep 0.5; echo ready > ` + q(filepath.Join(dir, "ready")),
		`sleep 300; echo survived`,
	}, "\n")
}

// rt27Alive lists the host processes whose argv holds marker (zombies
// excepted), and kills them when kill is set.
func rt27Alive(marker string, kill bool) []string {
	var alive []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(b, []byte(marker)) {
			continue
		}
		if st := rt9State(pid); st == "" || st == "Z" {
			continue
		}
		alive = append(alive, fmt.Sprintf("%d(%s):%s", pid, rt9State(pid), strings.ReplaceAll(string(b), "\x00", " ")))
		if kill {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return alive
}

func rt27WaitReady(dir string, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			return true
		}
	}
	return false
}

// rt27Outcome is what one Close scenario saw.
type rt27Outcome struct {
	Refused     string
	NotReady    bool
	CloseMillis int64
	AfterClose  []string // marker processes alive right after Close returned
	After2s     []string // and 2 s later
	WaitMillis  int64    // how long Wait / cmd.Wait took after Close
	Code        int
	Stdout      string
	WaitErr     string
	Control     string // a command run before Close: must print ok
}

// rt27CloseScenario runs the tree through api ("start" or "wrap") on m,
// closes m while it runs, and reports what outlived Close.
func rt27CloseScenario(m *agentbox.Manager, api, dir, marker string) rt27Outcome {
	var o rt27Outcome
	ctx := context.Background()
	if res, err := m.ExecArgs(ctx, "/bin/sh", []string{"-c", "echo ok"}, agentbox.WithWorkingDir(dir)); err == nil {
		o.Control = strings.TrimSpace(res.Stdout)
	} else {
		o.Control = err.Error()
	}
	cmd := exec.Command("/bin/sh", "-c", rt27Tree(marker, dir))
	var out bytes.Buffer
	cmd.Stdout = &out
	var wait func() (int, error)
	end := func() { _ = m.Close() }
	switch api {
	case "start":
		p, err := m.Start(ctx, cmd, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
		if err != nil {
			o.Refused = err.Error()
			return o
		}
		wait = func() (int, error) {
			res, err := p.Wait()
			if res == nil {
				return -1, err
			}
			return res.ExitCode, err
		}
	default:
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		cleanup, err := m.Wrap(ctx, cmd, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
		if err != nil {
			o.Refused = err.Error()
			return o
		}
		defer cleanup()
		if api == "wrapcleanup" {
			// Three cleanups at once while cmd.Wait runs (below, in
			// another goroutine), instead of Close.
			end = func() {
				var wg sync.WaitGroup
				for i := 0; i < 3; i++ {
					wg.Add(1)
					go func() { defer wg.Done(); cleanup() }()
				}
				wg.Wait()
			}
		}
		if err := cmd.Start(); err != nil {
			o.Refused = err.Error()
			return o
		}
		wait = func() (int, error) {
			err := cmd.Wait()
			return cmd.ProcessState.ExitCode(), err
		}
	}
	if api == "wrapnow" {
		// Close right after cmd.Start, while the init sets up.
		o.NotReady = false
	} else if !rt27WaitReady(dir, 15*time.Second) {
		o.NotReady = true
	}
	t0 := time.Now()
	end()
	o.CloseMillis = time.Since(t0).Milliseconds()
	o.AfterClose = rt27Alive(marker, false)
	type w struct {
		code int
		err  error
	}
	done := make(chan w, 1)
	t1 := time.Now()
	go func() { c, err := wait(); done <- w{c, err} }()
	select {
	case r := <-done:
		o.WaitMillis = time.Since(t1).Milliseconds()
		o.Code = r.code
		if r.err != nil {
			o.WaitErr = r.err.Error()
		}
	case <-time.After(20 * time.Second):
		o.WaitMillis = -1
	}
	o.Stdout = out.String()
	time.Sleep(2 * time.Second)
	o.After2s = rt27Alive(marker, true)
	return o
}

func rt27CheckClose(t *testing.T, o rt27Outcome) {
	t.Helper()
	t.Logf("%+v", o)
	if o.Refused != "" {
		t.Skipf("refused: %s", o.Refused)
	}
	if o.Control != "ok" {
		t.Errorf("control: a command before Close did not run: %q", o.Control)
	}
	if o.NotReady {
		t.Errorf("control: the tree never reported ready")
	}
	if o.CloseMillis > 10000 {
		t.Errorf("Close took %d ms", o.CloseMillis)
	}
	if o.WaitMillis < 0 {
		t.Errorf("Wait still blocked 20 s after Close")
	} else if o.WaitMillis > 10000 {
		t.Errorf("Wait took %d ms after Close", o.WaitMillis)
	}
	if strings.Contains(o.Stdout, "survived") {
		t.Errorf("the program ran on past Close: %q", o.Stdout)
	}
	if o.Code == 0 {
		t.Errorf("Wait reported success for a program Close killed (err %q)", o.WaitErr)
	}
	if len(o.After2s) > 0 {
		t.Errorf("processes of the sandbox outlived Manager.Close by 2 s: %v", o.After2s)
	}
}

func rt27Manager(t *testing.T) *agentbox.Manager {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestRedteam27LifecycleCloseWhileRunning: Manager.Close while a Started
// Process (never waited for yet) or a wrapped, started cmd runs a tree
// with a background child, a setsid'd double fork and stopped processes.
// Nothing of the tree may outlive Close (2 s grace), Close and the later
// Wait must return promptly, and Wait must not report success. Control: a
// command before Close runs.
func TestRedteam27LifecycleCloseWhileRunning(t *testing.T) {
	for _, api := range []string{"start", "wrap", "wrapnow", "wrapnow", "wrapnow"} {
		t.Run(api, func(t *testing.T) {
			m := rt27Manager(t)
			marker := fmt.Sprintf("rt27m%d%s", os.Getpid(), api)
			rt27CheckClose(t, rt27CloseScenario(m, api, hostDir(t), marker))
		})
	}
}

// TestRedteam27LifecycleReducedCloseWhileRunning is the same in the
// reduced tier (no pid namespace: only the init's rounds end the tree),
// plus "wrapcleanup": three concurrent Wrap cleanups instead of Close.
func TestRedteam27LifecycleReducedCloseWhileRunning(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	for _, api := range []string{"start", "wrap", "wrapcleanup", "wrapnow", "wrapnow"} {
		t.Run(api, func(t *testing.T) {
			dir := hostDir(t)
			marker := fmt.Sprintf("rt27r%d%s", os.Getpid(), api)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			b, _ := json.Marshal([]string{api, dir, marker})
			cmd.Env = append(os.Environ(), rt27ReducedEnv+"="+string(b))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, stderr.String())
			}
			var o rt27Outcome
			if err := json.Unmarshal(out, &o); err != nil {
				t.Fatalf("%v: %q\n%s", err, out, stderr.String())
			}
			defer rt27Alive(marker, true)
			rt27CheckClose(t, o)
		})
	}
}

func rt27ReducedChild(v string) int {
	var args []string
	if err := json.Unmarshal([]byte(v), &args); err != nil || len(args) != 3 {
		return 1
	}
	if err := nomount.Install(); err != nil {
		fmt.Fprintln(os.Stderr, "nomount:", err)
		return 1
	}
	cfg := agentbox.CIConfig()
	cfg.FallbackPolicy = agentbox.FallbackWarn
	cfg.Classifier = rt9Sandboxed{}
	var o rt27Outcome
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		o.Refused = err.Error()
	} else {
		o = rt27CloseScenario(m, args[0], args[1], args[2])
	}
	_ = json.NewEncoder(os.Stdout).Encode(o)
	return 0
}
