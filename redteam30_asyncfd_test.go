//go:build linux

package agentbox_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam30AsyncPipeFdHangsWait: the caller's stdout is an os.Pipe
// (non-blocking, as Go makes it) whose reader has stalled, with O_ASYNC
// set on its description. reopenWriter refuses such a pipe and relayed
// dups the caller's descriptor: the dup is non-blocking when Start looks,
// so Go's poller takes it and relay.abandon trusts its write deadline and
// then waits on the relay's lock for the write in progress. The dup shares
// the caller's open file description, and the caller calling w.Fd() after
// Start, before the program writes (here it sleeps 1 s first; common Go
// code: os.File.Fd puts the descriptor in blocking mode), turns the relay's
// write into a blocking write(2) in the kernel that no
// deadline interrupts. After the timeout kills the program, Wait's
// abandon blocks on the lock until the caller's reader comes back:
// Wait, WithTimeout notwithstanding, never returns while the reader is
// stalled (here: 20 s). README promises Wait waits 2 s at most for the
// copies after a timeout.
//
// Severity: low/medium (the caller's Wait hangs without bound; needs an
// O_ASYNC description, or another user's pipe as README names it, plus a
// Fd() call; no escape).
//
// Fix: relay.abandon must not wait without bound for the write in
// progress (wait at most a short while, then proceed as for ErrNoDeadline),
// or never relay through a dup that shares the caller's description's
// blocking mode. Control: the same run without O_ASYNC (the pipe is
// reopened) returns within copyDrain after the timeout.
//
// Fixed: the pipe is opened anew without O_ASYNC (notTakenOver), so the
// caller's Fd() does not reach the relay's description; and where a dup
// is still used (a socket, another user's pipe), outputRelays.abandon
// waits writeGiveUp (1 s) at most for the interrupted write.
func TestRedteam30AsyncPipeFdHangsWait(t *testing.T) {
	m := newManager(t, agentbox.CIConfig())
	run := func(async bool) (time.Duration, bool) {
		return rt30WaitStalled(t, async, func(cmd *exec.Cmd) func() {
			p, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(1500*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			return func() { p.Wait() }
		})
	}
	if d, ok := run(false); !ok {
		t.Fatalf("control: Wait without O_ASYNC did not return within 20 s (%v)", d)
	}
	if d, ok := run(true); !ok {
		t.Errorf("HANG: Wait with a 1.5 s timeout did not return within 20 s (%v, returned only once the reader resumed): relay.abandon waits on the lock of a blocking write to a dup of the caller's pipe", d)
	}
}
