//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 22 (standard streams): Process.Wait bounds its wait for
// the output's copies (copyDrain, 2 s) only when the timeout or ctx ended
// the program (TestRedteam19RelayedStdoutStuckReaderHangsWait). Once the
// program has exited on its own, Wait waits for every copy
// (p.copies.Wait) and no longer looks at the timeout's timer nor at ctx.
// The program chooses which branch runs: instead of writing and sleeping
// until the timeout kills it, it fills the relay's pipe (non-blocking
// writes to stdout until the pipe stays full) and exits at once. The copy
// into the caller's socket, whose peer does not read, then blocks for ever, and so does Wait: WithTimeout(1 s) and a
// cancelled ctx are both ignored. Wrap does not have this hole: its watch
// keeps running until cleanup, so the timeout releases the boundedWriters
// even after a normal exit (the Wrap case below is the control).
//
// Expected: Wait returns within a few seconds after the 1 s timeout (or
// the ctx's cancel), as it does when the program is killed. Controls: the
// same program with Wrap, and with stdout a regular file.
//
// Severity: medium (a denial of service of the caller: the timeout meant
// to bound an untrusted command does not bound Start/Wait, nor does the
// ctx); root and unprivileged callers (sockets are relayed for both; a
// pipe would do the same).
//
// A fix: while waiting for the copies after the program's exit, Wait must
// keep selecting on the timeout's timer and ctx.Done, and on either give
// the copies copyDrain more, as after a kill.
//
// Fixed: Process.awaitCopies keeps selecting on the timeout's timer and
// ctx.Done while the copies run after a normal exit, and on either gives
// them copyDrain and returns ErrTimeout or ctx.Err().
func TestRedteam22ExitedProgramStuckStdoutHangsWait(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	socket := func(t *testing.T) (*os.File, func()) {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		a, b := os.NewFile(uintptr(fds[0]), "sock-a"), os.NewFile(uintptr(fds[1]), "sock-b")
		return a, func() { a.Close(); b.Close() }
	}
	file := func(t *testing.T) (*os.File, func()) {
		f, err := os.CreateTemp(dir, "out")
		if err != nil {
			t.Fatal(err)
		}
		return f, func() { f.Close() }
	}
	// Fill the relay's pipe (and the socket behind it) without blocking,
	// then exit on its own, before the timeout (after 4 MiB at most: a
	// regular file is never full).
	const script = `python3 -c '
import os, fcntl, time
try:
    fcntl.fcntl(1, 1031, 1 << 20)  # F_SETPIPE_SZ: a larger relay pipe, not needed
except OSError:
    pass
os.set_blocking(1, False)
full = total = 0
while full < 20 and total < 4 << 20:
    try:
        total += os.write(1, bytes(65536))
        full = 0
    except BlockingIOError:
        full += 1
        time.sleep(0.01)
'`
	for _, tc := range []struct {
		name   string
		api    string
		cancel bool // end by ctx rather than WithTimeout
		out    func(t *testing.T) (*os.File, func())
	}{
		{"control: Start, a regular file", "Start", false, file},
		{"control: Wrap, a socket whose peer does not read", "Wrap", false, socket},
		{"Start, WithTimeout, a socket whose peer does not read", "Start", false, socket},
		{"Start, ctx cancelled, a socket whose peer does not read", "Start", true, socket},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, closeOut := tc.out(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var opts []agentbox.Option
			if tc.cancel {
				time.AfterFunc(time.Second, cancel)
			} else {
				opts = append(opts, agentbox.WithTimeout(time.Second))
			}
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Stdout = out
			done := make(chan error, 1)
			switch tc.api {
			case "Start":
				pr, err := m.Start(ctx, cmd, opts...)
				if err != nil {
					closeOut()
					t.Fatal(err)
				}
				go func() { _, err := pr.Wait(); done <- err }()
			case "Wrap":
				cleanup, err := m.Wrap(ctx, cmd, opts...)
				if err != nil {
					closeOut()
					t.Fatal(err)
				}
				go func() { err := cmd.Run(); cleanup(); done <- err }()
			}
			select {
			case err := <-done:
				t.Logf("returned: %v", err)
				closeOut()
			case <-time.After(10 * time.Second):
				closeOut() // free the stuck copy so the test ends
				err := <-done
				t.Errorf("HANG: Wait had not returned 9 s after the 1 s timeout/cancel, the program having exited by itself (its output's copy into the caller's stuck socket holds Wait; the timeout and ctx are no longer watched); returned once the caller closed its end: %v", err)
			}
		})
	}
}
