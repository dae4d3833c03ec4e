//go:build linux

package agentbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/internal/nomount"
)

// Red team 9: how a sandbox is ended, in the reduced tier (no user, so no
// pid, namespace), where nothing but the init can end the program's tree.

// rt9ReducedEnv makes the test binary, started again by rt9RunReduced,
// stand for a machine whose user namespaces grant nothing (mount refused,
// as tests/attack's "no-capabilities"), run one scenario through the warn
// fallback's reduced tier and print an rt9Outcome as JSON.
const (
	rt9ReducedEnv = "AGENTBOX_RT9WRAP_REDUCED"
	rt9DirEnv     = "AGENTBOX_RT9WRAP_DIR"
)

func init() {
	if name := os.Getenv(rt9ReducedEnv); name != "" {
		os.Exit(rt9ReducedChild(name, os.Getenv(rt9DirEnv)))
	}
}

// rt9Sandboxed sends every command to the sandbox (the attack is the
// sandbox's, not the classifier's).
type rt9Sandboxed struct{}

func (rt9Sandboxed) Classify(string) agentbox.ClassifyResult {
	return agentbox.ClassifyResult{Decision: agentbox.DecisionSandboxed}
}

func (rt9Sandboxed) ClassifyArgs(string, []string) agentbox.ClassifyResult {
	return agentbox.ClassifyResult{Decision: agentbox.DecisionSandboxed}
}

// rt9Outcome is what one scenario saw.
type rt9Outcome struct {
	Refused  string   // agentbox refused to run (not the reduced tier)
	Err      string   // the run's error, if any
	Degraded []string // the layers missing (the reduced tier says so)
	Code     int      // the command's exit status
	Stdout   string
	Millis   int64 // how long the caller waited, from the start to the end of the run
	Alive    []int // processes of the command that outlived the run
}

// rt9Scenario is one run in the reduced tier: a script started through
// API ("exec": ExecArgs, "start": Start and Wait, "wrap": Wrap and cmd.Run)
// and ended by Timeout. The script writes the pids of the processes it
// starts into $PIDS.
type rt9Scenario struct {
	API     string
	Script  string
	Timeout time.Duration
	// CountedMemory, when set, is a memory limit no cgroup enforces
	// (ResourceLimits.CountedMemoryOnly), in bytes.
	CountedMemory int64 `json:",omitempty"`
}

func rt9Run(m *agentbox.Manager, dir string, s rt9Scenario) rt9Outcome {
	switch s.API {
	case "exec":
		return rt9Exec(m, dir, s.Script, s.Timeout)
	case "start":
		return rt9Start(m, dir, s.Script, s.Timeout)
	default:
		return rt9Wrap(m, dir, s.Script, s.Timeout)
	}
}

// rt9Exec runs script with ExecArgs and timeout.
func rt9Exec(m *agentbox.Manager, dir, script string, timeout time.Duration) rt9Outcome {
	var o rt9Outcome
	began := time.Now()
	res, err := m.ExecArgs(context.Background(), "/bin/sh", []string{"-c", script},
		agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir), agentbox.WithTimeout(timeout),
		agentbox.WithEnv("PIDS="+filepath.Join(dir, "pids")))
	o.Millis = time.Since(began).Milliseconds()
	if err != nil {
		o.Err = err.Error()
	} else {
		o.Code, o.Stdout, o.Degraded = res.ExitCode, res.Stdout, res.Degraded
	}
	o.Alive = rt9Survivors(dir)
	return o
}

// rt9Start runs script with Start and timeout, and waits for it.
func rt9Start(m *agentbox.Manager, dir, script string, timeout time.Duration) rt9Outcome {
	var o rt9Outcome
	cmd := exec.Command("/bin/sh", "-c", script)
	began := time.Now()
	p, err := m.Start(context.Background(), cmd, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir),
		agentbox.WithTimeout(timeout), agentbox.WithEnv("PIDS="+filepath.Join(dir, "pids")))
	if err == nil {
		var res *agentbox.ExecResult
		res, err = p.Wait()
		if res != nil {
			o.Code, o.Stdout, o.Degraded = res.ExitCode, res.Stdout, res.Degraded
		}
	}
	o.Millis = time.Since(began).Milliseconds()
	if err != nil {
		o.Err = err.Error()
	}
	o.Alive = rt9Survivors(dir)
	return o
}

// rt9Wrap runs script with Wrap and timeout.
func rt9Wrap(m *agentbox.Manager, dir, script string, timeout time.Duration) rt9Outcome {
	var o rt9Outcome
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "PIDS=" + filepath.Join(dir, "pids")}
	var out strings.Builder
	cmd.Stdout = &out
	began := time.Now()
	cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithWorkingDir(dir),
		agentbox.WithWritableRoots(dir), agentbox.WithTimeout(timeout))
	if err != nil {
		o.Err = err.Error()
		return o
	}
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		o.Err = err.Error()
	}
	cleanup()
	o.Millis = time.Since(began).Milliseconds()
	o.Code, o.Stdout = cmd.ProcessState.ExitCode(), out.String()
	o.Alive = rt9Survivors(dir)
	return o
}

// rt9Survivors lists the pids in dir/pids that still run (and kills them:
// the test leaves nothing behind).
func rt9Survivors(dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "pids"))
	var alive []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 1 {
			continue
		}
		if st := rt9State(pid); st != "" && st != "Z" {
			alive = append(alive, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return alive
}

// rt9State is the state letter of pid ("" if gone).
func rt9State(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

func rt9ReducedChild(name, dir string) int {
	out := func(o rt9Outcome) int {
		if err := json.NewEncoder(os.Stdout).Encode(o); err != nil {
			return 1
		}
		return 0
	}
	if err := nomount.Install(); err != nil {
		fmt.Fprintln(os.Stderr, "nomount:", err)
		return 1
	}
	var s rt9Scenario
	if err := json.Unmarshal([]byte(name), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg := agentbox.CIConfig()
	cfg.FallbackPolicy = agentbox.FallbackWarn
	cfg.Classifier = rt9Sandboxed{}
	if s.CountedMemory > 0 {
		cfg.ResourceLimits.MaxMemoryBytes = s.CountedMemory
		cfg.ResourceLimits.CountedMemoryOnly = true
	}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		return out(rt9Outcome{Refused: err.Error()})
	}
	defer m.Close()
	return out(rt9Run(m, dir, s))
}

// rt9RunReduced runs scenario in a child standing for a machine without
// usable user namespaces.
func rt9RunReduced(t *testing.T, s rt9Scenario) rt9Outcome {
	t.Helper()
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	dir := hostDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	b, _ := json.Marshal(s)
	scenario := string(b)
	cmd.Env = append(os.Environ(), rt9ReducedEnv+"="+scenario, rt9DirEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: the child failed: %v\n%s", scenario, err, stderr.String())
	}
	var o rt9Outcome
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s: %v: %q\n%s", scenario, err, b, stderr.String())
	}
	if o.Refused != "" {
		t.Skipf("agentbox refused the reduced tier: %s", o.Refused)
	}
	t.Logf("%s %q: %+v", s.API, s.Script, o)
	return o
}

// TestRedteam9ReducedTimeoutEndsTree: in the reduced tier (no pid
// namespace) a wrapped command's timeout is carried out by its init
// (msgKill: the program's process group, then every orphan), but Exec's
// and Start's still SIGKILL the init itself: the program dies of its
// parent-death signal, and nothing ends the rest of its tree. The attack:
// an ordinary background child (same process group; no setsid, no double
// fork) of a command whose timeout passes must be gone when Exec or
// Process.Wait returns, and a child holding the command's stdout must not
// keep Exec from returning (it waited out the child instead). The
// controls: a quick command runs; the same tree under Wrap is ended.
//
// Fixed: Kill of an init without a pid namespace asks it (msgKill) to end
// the program's process group and its adopted orphans, and kills it
// after killGrace.
func TestRedteam9ReducedTimeoutEndsTree(t *testing.T) {
	const bg = `sleep 12 </dev/null >/dev/null 2>&1 & echo $! >>"$PIDS"; wait`
	tm := 700 * time.Millisecond
	for _, c := range []struct {
		name    string
		s       rt9Scenario
		control bool
	}{
		{"control: exec quick", rt9Scenario{API: "exec", Script: "echo ok", Timeout: 10 * time.Second}, true},
		{"control: wrap background child", rt9Scenario{API: "wrap", Script: bg, Timeout: tm}, true},
		{"exec background child", rt9Scenario{API: "exec", Script: bg, Timeout: tm}, false},
		{"start background child", rt9Scenario{API: "start", Script: bg, Timeout: tm}, false},
		{"exec child holding stdout", rt9Scenario{API: "exec", Script: `sleep 8; true`, Timeout: tm}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := rt9RunReduced(t, c.s)
			if c.control && c.s.API == "exec" {
				if o.Err != "" || o.Code != 0 || o.Stdout != "ok\n" {
					t.Fatalf("control: %+v", o)
				}
				return
			}
			if len(o.Alive) > 0 {
				t.Errorf("ESCAPE: %d processes of the command outlived its %v timeout (%s): pids %v", len(o.Alive), c.s.Timeout, c.s.API, o.Alive)
			}
			if o.Millis > 4000 {
				t.Errorf("HANG: %s returned %d ms after its start, with a %v timeout", c.s.API, o.Millis, c.s.Timeout)
			}
		})
	}
}
