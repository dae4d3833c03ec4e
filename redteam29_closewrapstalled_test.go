//go:build linux

package agentbox_test

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
	"golang.org/x/sys/unix"
)

// rt29FillPipe fills the caller's pipe (write end w) through a
// non-blocking description of its own: its reader has stalled.
func rt29FillPipe(t *testing.T, w int) {
	t.Helper()
	nb, err := unix.Open("/proc/self/fd/"+strconv.Itoa(w), unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(nb)
	fill := make([]byte, 1<<16)
	for {
		if n, err := unix.Write(nb, fill); n <= 0 || err != nil {
			return
		}
	}
}

// TestRedteam29CloseWrappedStalledPipeHangsWait: a wrapped command
// (no WithTimeout, ctx.Background) floods the caller's own pipe as
// cmd.Stdout, whose reader has stalled (a log consumer paused, or one
// that reads only after cmd.Wait). The host shuts down: Manager.Close
// kills the sandbox. Close ends a Process's copies as a timeout would
// (Process.reclaimed: copyDrain, then outputRelays.abandon), and
// TestCloseReleasesWrapped promises that cmd.Wait after Close reports the
// kill (137). But Close never calls Wrap's release (relays.abandon and
// close(abandon)): only watch (timeout/ctx) and the caller's cleanup do.
// os/exec's copy into the boundedWriter stays blocked on the caller's
// pipe, and cmd.Wait, for a command Close killed, never returns. A
// caller that runs `cmd.Start(); defer cleanup(); cmd.Wait()` (the
// documented order) hangs for ever on shutdown. With plain os/exec the
// killed child's pipe is the caller's own and cmd.Wait returns at once.
//
// Control: the same flood through Start (a Process): Close makes Wait
// return the kill within copyDrain.
//
// Severity: low (a hang of the caller's shutdown, a goroutine and its
// buffers left; no escape).
//
// Fix: Close/Cleanup's reclaim of a wrapped cmd (wrapped.reclaim) should
// run Wrap's release after copyDrain, as watch's kill does, so that the
// boundedWriter and relays give up.
//
// Fixed: wrapped.Kill, which Close and Cleanup call, gives the output's
// copies up copyDrain after the kill, as watch's kill does.
func TestRedteam29CloseWrappedStalledPipeHangsWait(t *testing.T) {
	for _, kind := range []string{"wrap", "start"} {
		t.Run(kind, func(t *testing.T) {
			m, err := agentbox.NewManager(agentbox.CIConfig())
			if err != nil {
				t.Skip(err)
			}
			defer m.Close()
			r, w, wf := rt26Pipe(t)
			if err := unix.SetNonblock(r, true); err != nil {
				t.Fatal(err)
			}
			rt29FillPipe(t, w)
			wait := func() error { return nil }
			var cleanup func()
			if kind == "wrap" {
				cmd := exec.Command("/bin/sh", "-c", "yes KILLED-COMMAND-OUTPUT")
				cmd.Stdout = wf
				cleanup, err = m.Wrap(context.Background(), cmd)
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					cleanup()
					t.Fatal(err)
				}
				wait = cmd.Wait
			} else {
				cmd := exec.Command("/bin/sh", "-c", "yes KILLED-COMMAND-OUTPUT")
				cmd.Stdout = wf
				p, err := m.Start(context.Background(), cmd)
				if err != nil {
					t.Fatal(err)
				}
				wait = func() error { _, err := p.Wait(); return err }
			}
			time.Sleep(2 * time.Second) // the program runs and blocks on the full pipes
			closed := make(chan error, 1)
			go func() { closed <- m.Close() }()
			select {
			case err := <-closed:
				if err != nil {
					t.Logf("Close: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("HANG: Close did not return")
			}
			done := make(chan error, 1)
			go func() { done <- wait() }()
			select {
			case err := <-done:
				t.Logf("%s: Wait after Close returned %v", kind, err)
			case <-time.After(20 * time.Second):
				if cleanup != nil {
					cleanup() // releases the stuck copy
					<-done
				}
				t.Errorf("HANG: %s: Wait did not return within 20 s of Close having killed the command (its output stuck on the caller's stalled pipe)", kind)
			}
			if cleanup != nil {
				cleanup()
			}
			// Control: the caller's pipe still works once drained.
			rt26Drain(t, r)
		})
	}
}
