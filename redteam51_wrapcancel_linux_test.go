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

// rt51bCancelEnv makes the test binary, started again by rt51bRunCancel,
// stand for a machine whose user namespaces grant nothing (mount refused,
// as tests/attack's "no-capabilities"), wrap one command through the warn
// fallback's reduced tier, end its ctx while it runs, and print an
// rt51bCancelOutcome as JSON. Its value says whether the command is made
// with exec.CommandContext ("context") or exec.Command ("plain").
const (
	rt51bCancelEnv = "AGENTBOX_RT51B_CANCEL"
	rt51bDirEnv    = "AGENTBOX_RT51B_DIR"
)

func init() {
	if how := os.Getenv(rt51bCancelEnv); how != "" {
		os.Exit(rt51bCancelChild(how, os.Getenv(rt51bDirEnv)))
	}
}

// rt51bCancelOutcome is what the child saw.
type rt51bCancelOutcome struct {
	Refused  string // agentbox refused to run (not the reduced tier)
	Err      string
	Degraded []string
	Code     int
	Alive    []int // processes of the command still running after cleanup
	Late     bool  // the command's background child wrote into the writable root after cleanup
}

// rt51bScript starts a background child (same process group, no setsid,
// no double fork) that writes "late" into the working directory (the
// writable root) 1.5 s later, records its pid, says it is ready and waits.
const rt51bScript = `( sleep 1.5; echo LATE > late ) </dev/null >/dev/null 2>&1 & echo $! >>"$PIDS"; echo ready >ready; wait`

func rt51bCancelChild(how, dir string) int {
	out := func(o rt51bCancelOutcome) int {
		if err := json.NewEncoder(os.Stdout).Encode(o); err != nil {
			return 1
		}
		return 0
	}
	if err := nomount.Install(); err != nil {
		fmt.Fprintln(os.Stderr, "nomount:", err)
		return 1
	}
	cfg := agentbox.CIConfig()
	cfg.FallbackPolicy = agentbox.FallbackWarn
	cfg.Classifier = rt9Sandboxed{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		return out(rt51bCancelOutcome{Refused: err.Error()})
	}
	defer m.Close()
	// The tier the Manager runs (Wrap's result has no layers).
	res, err := m.ExecArgs(context.Background(), "/bin/true", nil, agentbox.WithWorkingDir(dir))
	if err != nil {
		return out(rt51bCancelOutcome{Err: "exec: " + err.Error()})
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cmd *exec.Cmd
	if how == "context" {
		// The idiomatic way to tie a command to a context: os/exec's
		// Cancel then kills cmd.Process when ctx ends.
		cmd = exec.CommandContext(ctx, "/bin/sh", "-c", rt51bScript)
	} else {
		cmd = exec.Command("/bin/sh", "-c", rt51bScript)
	}
	cmd.Env = []string{"PATH=/usr/bin:/bin", "PIDS=" + filepath.Join(dir, "pids")}
	cleanup, err := m.Wrap(ctx, cmd, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
	if err != nil {
		return out(rt51bCancelOutcome{Err: "wrap: " + err.Error()})
	}
	o := rt51bCancelOutcome{Degraded: res.Degraded}
	if err := cmd.Start(); err != nil {
		cleanup()
		return out(rt51bCancelOutcome{Err: "start: " + err.Error()})
	}
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The caller's ctx ends: Wrap promises that this kills the sandbox's
	// whole process tree.
	cancel()
	_ = cmd.Wait()
	cleanup()
	if cmd.ProcessState != nil {
		o.Code = cmd.ProcessState.ExitCode()
	}
	time.Sleep(2500 * time.Millisecond) // past the background child's 1.5 s
	if _, err := os.Stat(filepath.Join(dir, "late")); err == nil {
		o.Late = true
	}
	b, _ := os.ReadFile(filepath.Join(dir, "pids"))
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 1 {
			continue
		}
		if st := rt9State(pid); st != "" && st != "Z" {
			o.Alive = append(o.Alive, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return out(o)
}

// rt51bRunCancel runs the child for how and returns its outcome.
func rt51bRunCancel(t *testing.T, how string) rt51bCancelOutcome {
	t.Helper()
	dir := hostDir(t)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), rt51bCancelEnv+"="+how, rt51bDirEnv+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: the child failed: %v\n%s", how, err, stderr.String())
	}
	var o rt51bCancelOutcome
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s: %v: %q\n%s", how, err, b, stderr.String())
	}
	if o.Refused != "" {
		t.Skipf("agentbox refused the reduced tier: %s", o.Refused)
	}
	if o.Err != "" {
		t.Fatalf("%s: %s", how, o.Err)
	}
	t.Logf("%s: %+v", how, o)
	return o
}

// TestRedteam51WrapCommandContextCancel: Wrap a command made the idiomatic
// way, with exec.CommandContext(ctx, …), in the reduced tier (no pid
// namespace), and end ctx while it runs. Wrap's doc says "ctx, and
// WithTimeout, kill the sandbox's whole process tree when they end"; its
// own watch asks the init to end the tree (msgKill). But os/exec's
// cmd.Cancel, which exec.CommandContext sets to cmd.Process.Kill, fires on
// the same ctx, and after Prepare cmd.Process is the sandbox's init: the
// init gets SIGKILL before it has ended the tree. The program dies of its
// parent-death signal, and its ordinary background child (same process
// group, no setsid) is re-parented to the host's init and runs on after
// cmd.Wait and cleanup (after the planted-repository sweep too), still
// writing into the writable root. The README admits this only for "a
// SIGKILL from the user or the OOM killer"; here it is the caller's
// routine cancellation.
//
// Why: wrap.go Manager.Wrap checks cmd.SysProcAttr and cmd.ExtraFiles
// (checkProcAttr, refuseExtraFiles) but neither refuses nor replaces
// cmd.Cancel, and sandbox/linux/runtime.go Runtime.Prepare leaves it
// pointing at cmd.Process (the init), so os/exec's Kill of the init races
// Wrap's watch (and wins). Severity: medium (a process of the command
// outlives its end and writes where the caller believes nothing runs; in
// the reduced tier only, which leaves such writes unconfined in time).
//
// Control: the same command made with exec.Command (no Cancel) and the
// same ctx ended is ended whole by the init, and writes nothing late.
//
// Found by red-team round 51. Fixed: Wrap replaces cmd.Cancel with one
// that ends the sandbox's tree first, as ctx does.
func TestRedteam51WrapCommandContextCancel(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	ctl := rt51bRunCancel(t, "plain")
	if len(ctl.Alive) != 0 || ctl.Late {
		t.Fatalf("control: a plain exec.Command's tree outlived its ctx: %+v", ctl)
	}
	if len(ctl.Degraded) == 0 || !strings.Contains(ctl.Degraded[0], "reduced tier") {
		t.Fatalf("control: the run was not the reduced tier: %+v", ctl)
	}
	for i := 0; i < 3; i++ {
		o := rt51bRunCancel(t, "context")
		if len(o.Alive) > 0 || o.Late {
			t.Errorf("ESCAPE: a process of a wrapped exec.CommandContext command whose ctx ended ran on after cmd.Wait and cleanup: wrote into the writable root afterwards %v; still running 2.5 s later %v", o.Late, o.Alive)
			return
		}
	}
}
