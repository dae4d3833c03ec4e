//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam55CleanupMissesSandboxBeingStarted: Manager.Cleanup "kills
// every sandbox this Manager still runs" (a kill switch that leaves the
// Manager usable), but it only kills what is in m.running
// (lifecycle.go Cleanup: slices.Collect(maps.Keys(m.running))), and a
// call enters m.running only once its sandbox is up: startProcess calls
// m.track after spec() (git scans, the granted record) and rt.Start (a
// warm init's mounts, Landlock, seccomp, the program's exec) have
// returned; Wrap tracks after Prepare. A command the agent issued before
// the kill switch, still being set up when Cleanup runs, is not seen:
// Cleanup returns nil at once, and the command then starts and runs to
// its end. Close, by contrast, waits for the calls it admitted (enter /
// awaitCalls) and ends their sandboxes too ("A Start or Wrap already
// starting its sandbox as Close begins is waited for ... and its sandbox
// ended"); Cleanup has no such step.
//
// Severity: low (a kill switch misses a command issued just before it;
// nothing is widened). Fix: Cleanup, as Close, waits for (or marks, so
// that track kills) the calls already past enter when it begins.
//
// The attack: Exec of a command that writes a marker into its writable
// root 600 ms in; Cleanup is called as soon as the call's plan has put its
// placeholders (the missing .vscode) on the host, so the call is past
// enter and its sandbox is being built, and the program has not started;
// the command must not write the marker. Premise: the program has not
// started when Cleanup is called (a try where it had is not counted).
// Control: Cleanup called once the command runs kills it (exit 137, no
// marker).
//
// Found by red-team round 55. Fixed: lifecycle.go (Cleanup counts, and
// track ends a sandbox built by a call that began before it: trackCleaned).
func TestRedteam55CleanupMissesSandboxBeingStarted(t *testing.T) {
	cfg := agentbox.CIConfig()
	cfg.Classifier = rt9Sandboxed{}
	m := newManager(t, cfg)
	script := `echo started > started; sleep 0.6; echo LATE > late`
	type outcome struct {
		late, early bool // LATE written; the program had started before Cleanup
		code        int
		err         error
	}
	try := func(afterStart bool) outcome {
		dir := hostDir(t)
		_ = os.Chmod(dir, 0o777)
		type result struct {
			res *agentbox.ExecResult
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, err := m.ExecArgs(context.Background(), "/bin/sh", []string{"-c", script},
				agentbox.WithWorkingDir(dir), agentbox.WithWritableRoots(dir), agentbox.WithTimeout(10*time.Second))
			done <- result{res, err}
		}()
		// Wait until the call is past enter and its sandbox is being
		// built: the plan's placeholder for the missing .vscode is on the
		// host (or, for the control, until the program runs).
		mark := filepath.Join(dir, ".vscode")
		if afterStart {
			mark = filepath.Join(dir, "started")
		}
		for end := time.Now().Add(5 * time.Second); ; time.Sleep(200 * time.Microsecond) {
			if _, err := os.Stat(mark); err == nil {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("premise: %s never appeared", mark)
			}
		}
		var o outcome
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil && !afterStart {
			o.early = true // the program already runs: this try says nothing
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		o.err = m.Cleanup(ctx)
		cancel()
		r := <-done
		if r.res == nil {
			t.Fatalf("ExecArgs: %v", r.err)
		}
		o.code = r.res.ExitCode
		_, statErr := os.Stat(filepath.Join(dir, "late"))
		o.late = statErr == nil
		return o
	}
	time.Sleep(300 * time.Millisecond) // a warm init ready, as in steady use
	if c := try(true); c.late || c.code != 137 {
		t.Fatalf("control: Cleanup did not end a running command: %+v", c)
	}
	escaped, conclusive := 0, 0
	for i := 0; i < 6; i++ {
		o := try(false)
		t.Logf("try %d: Cleanup while the sandbox was being built (placeholders made; program already running %v): exit %d, LATE %v, Cleanup %v", i, o.early, o.code, o.late, o.err)
		if o.early {
			continue
		}
		conclusive++
		if o.late {
			escaped++
		}
	}
	if conclusive == 0 {
		t.Fatalf("premise: Cleanup never came while a sandbox was being built")
	}
	if escaped > 0 {
		t.Errorf("ESCAPE: in %d of %d tries, a command whose sandbox was being built (its placeholders already on the host) when Cleanup ran was not killed: Cleanup returned, the program started and ran to its end, writing LATE into its writable root 600 ms later", escaped, conclusive)
	}
}
