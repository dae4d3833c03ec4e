//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt9CancelThenCleanup wraps "sleep 30", starts it, after delay cancels
// its ctx and, if cleanupToo, gap later calls cleanup (the usual
// cancel(); cleanup() pair: two Kills; otherwise cleanup comes once the
// command ended). It reports whether the sandbox still ran a second
// after cleanup returned, and the exit status; a sandbox still running is
// then ended through its init (the test's own cmd.Process).
func rt9CancelThenCleanup(t *testing.T, m *agentbox.Manager, delay, gap time.Duration, cleanupToo bool) (alive bool, code int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.Command("/bin/sleep", "30")
	cleanup, err := m.Wrap(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cleanup()
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	time.Sleep(delay)
	cancel()
	if cleanupToo {
		time.Sleep(gap)
		cleanup()
	} else {
		defer cleanup()
	}
	select {
	case <-waited:
		return false, cmd.ProcessState.ExitCode()
	case <-time.After(time.Second):
	}
	_ = cmd.Process.Kill() // the test's own: it leaves nothing behind
	<-waited
	return true, -1
}

// TestRedteam9WrapKillEaten: Kill of a wrapped sandbox first tries
// withdraw, which reads, without waiting, whatever is queued on the
// init's end of the control socket and, if it read anything, takes it for
// the spec, shuts the socket for reading and reports the sandbox ended.
// Once the init has read its spec, what is queued there is the first
// Kill's msgKill (ctx), until the init's awaitKill reads it: only once the
// program runs, and even then only once its thread is woken. A second
// Kill (cleanup, a timeout, Manager.Close) in that time eats it, and the
// shut socket makes awaitKill return as if the parent were gone.
// Nobody kills the program: it runs on after ctx and cleanup, for as long
// as it likes (cmd.Wait blocks as long). The attack: across cancel delays
// spanning the init's set-up, and with the program running, cancel() then
// cleanup() must end the sandbox. The control: a cancel alone ends a
// running program at once (exit 137).
//
// Fixed: Kill of a prepared handle sends msgKill once (killSent) and
// never reads the init's end again after it (killPrepared).
func TestRedteam9WrapKillEaten(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	// How long from Start until the program runs: a wrapped program that
	// writes a file, polled.
	dir := hostDir(t)
	marker := filepath.Join(dir, "ran")
	cmd := exec.Command("/bin/sh", "-c", `: >"$1"`, "sh", marker)
	cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithWritableRoots(dir))
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var span time.Duration
	for time.Since(began) < 10*time.Second {
		if _, err := os.Stat(marker); err == nil {
			span = time.Since(began)
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	_ = cmd.Wait()
	cleanup()
	if span == 0 {
		t.Fatal("control: the wrapped program never ran")
	}

	t.Run("control: cancel alone", func(t *testing.T) {
		for i := 0; i < 5; i++ {
			alive, code := rt9CancelThenCleanup(t, m, 3*span+100*time.Millisecond, 0, false)
			if alive || code != 137 {
				t.Fatalf("control: ctx did not end a running program (alive %v, exit %d)", alive, code)
			}
		}
	})
	t.Run("attack: program running", func(t *testing.T) {
		for i := 0; i < 12; i++ {
			if alive, _ := rt9CancelThenCleanup(t, m, 3*span+100*time.Millisecond, 0, true); alive {
				t.Fatalf("ESCAPE: run %d: cancel(); cleanup(): the wrapped program still ran a second after cleanup returned", i+1)
			}
		}
	})
	t.Run("attack: during set-up", func(t *testing.T) {
		const steps = 50
		for i := 0; i < steps; i++ {
			delay := span * time.Duration(i) / steps
			if alive, _ := rt9CancelThenCleanup(t, m, delay, 100*time.Microsecond, true); alive {
				t.Fatalf("ESCAPE: ctx cancelled %v after cmd.Start, then cleanup: the wrapped program still ran a second after cleanup returned", delay)
			}
		}
	})
}
