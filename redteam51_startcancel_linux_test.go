//go:build linux

package agentbox_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam51StartDropsCommandContext: Manager.Start takes the caller's
// *exec.Cmd ("the program cmd describes (Path, Args, Env, Dir, Stdin,
// …)") and refuses the fields it cannot honour (cmd.SysProcAttr beyond
// Setpgid and Pdeathsig, cmd.ExtraFiles: "so they would be dropped
// without a word"), but a cmd made with exec.CommandContext carries its
// deadline in cmd.Cancel (and os/exec's private context), which Start
// never looks at: the caller's deadline is dropped without a word, and
// the sandboxed program runs on past it, to its end, writing into the
// writable root. A harness that bounds an agent's command the idiomatic
// way (exec.CommandContext(ctx, …)) and hands it to Start gets no bound.
//
// Why: process.go Manager.Start / startProcess copy Path, Args, Env, Dir
// and the streams out of cmd and check SysProcAttr and ExtraFiles
// (checkProcAttr, refuseExtraFiles), but neither refuse a non-nil
// cmd.Cancel nor carry it out; the run is bounded only by Start's own ctx
// and WithTimeout. Severity: low (a command outlives the deadline its
// caller set; no widening of what it may touch).
//
// Control: the same command with the same deadline given as Start's own
// ctx is ended at the deadline and writes nothing.
//
// Found by red-team round 51. Fixed: Start refuses a cmd with a Cancel
// (exec.CommandContext's), naming what to do instead.
func TestRedteam51StartDropsCommandContext(t *testing.T) {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	m := newManager(t, cfg)
	const script = `sleep 1.5; echo LATE > late`
	run := func(viaCmd bool) (late bool, took time.Duration) {
		dir := hostDir(t)
		_ = os.Chmod(dir, 0o777)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		var cmd *exec.Cmd
		startCtx := ctx
		if viaCmd {
			cmd = exec.CommandContext(ctx, "/bin/sh", "-c", script)
			startCtx = context.Background()
		} else {
			cmd = exec.Command("/bin/sh", "-c", script)
		}
		began := time.Now()
		p, err := m.Start(startCtx, cmd, agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir))
		if viaCmd && errors.Is(err, agentbox.ErrConfigInvalid) {
			t.Logf("refused: %v", err) // the fix: refused, not dropped
			return false, 0
		}
		if err != nil {
			t.Fatalf("Start (cmd with context %v): %v", viaCmd, err)
		}
		res, err := p.Wait()
		took = time.Since(began)
		t.Logf("cmd with context %v: %v after %v (%+v)", viaCmd, err, took, res)
		_, statErr := os.Stat(filepath.Join(dir, "late"))
		return statErr == nil, took
	}
	if late, took := run(false); late || took > 1200*time.Millisecond {
		t.Fatalf("control: Start's own ctx did not end the command at its deadline (wrote %v, took %v)", late, took)
	}
	if late, took := run(true); late {
		t.Errorf("ESCAPE: Start ran an exec.CommandContext command %v past its cmd's 300 ms deadline, to its end (it wrote into the writable root at 1.5 s); the deadline was neither carried out nor refused", took)
	}
}
