//go:build linux

package agentbox_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam30AsyncPipeFdHangsWrapCleanup is TestRedteam30AsyncPipeFdHangsWait
// for Wrap: the caller's stdout is an O_ASYNC os.Pipe whose reader has
// stalled, relayed through a dup (reopenWriter refuses O_ASYNC), and the
// caller's w.Fd() after cmd.Start makes the shared description blocking.
// When the timeout kills the command, watch's release (copyDrain later)
// runs relays.abandon, which waits on the relay's lock held by a write
// blocked in the kernel, so close(abandon) never comes: boundedWriter
// never gives the copy up and cmd.Wait does not return; and cleanup, which
// calls the same sync.OnceFunc release, blocks behind it too (a OnceFunc's
// second caller waits for the first). Both hang until the caller's reader
// resumes, against README's 2 s bound.
//
// Severity: low/medium (the caller's cmd.Wait and cleanup hang without
// bound; needs O_ASYNC or another user's pipe plus a Fd() call; no escape).
// Fix: as for Process (relay.abandon must not wait without bound), and
// close(abandon) before waiting on the relays. Control: the same run
// without O_ASYNC returns within copyDrain after the timeout.
//
// Fixed: as TestRedteam30AsyncPipeFdHangsWait (reopened without O_ASYNC;
// abandon's wait bounded by writeGiveUp), and relay.close leaves a write
// still stuck on a dup to finish in the background instead of waiting in
// os.File.Close.
func TestRedteam30AsyncPipeFdHangsWrapCleanup(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	run := func(async bool) (time.Duration, bool) {
		return rt30WaitStalled(t, async, func(cmd *exec.Cmd) func() {
			cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithTimeout(1500*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				cleanup()
				t.Fatal(err)
			}
			return func() { _ = cmd.Wait(); cleanup() }
		})
	}
	if d, ok := run(false); !ok {
		t.Fatalf("control: cmd.Wait and cleanup without O_ASYNC did not return within 20 s (%v)", d)
	}
	if d, ok := run(true); !ok {
		t.Errorf("HANG: cmd.Wait and cleanup with a 1.5 s timeout did not return within 20 s (%v, only once the reader resumed)", d)
	}
}
