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

// Red-team session 19 (standard streams): a socket handed to Start as
// stdout (any caller), or a root caller's pipe, is relayed: Process.output
// copies a pipe of agentbox's into a dup of the caller's file, and Wait
// waits for that copy (p.copies.Wait) after the program's tree is gone.
// When the caller's reader does not read (a stuck consumer), the copy
// blocks writing the socket forever, and so does Wait: WithTimeout kills
// the program, but Wait never returns, where the program given the
// descriptor itself would have been killed and Wait would have returned.
//
// The program writes 8 MiB to stdout; the socket's peer reads nothing;
// the timeout is 1 s. Expected: Wait returns within a few seconds with
// ErrTimeout. The control: the same with stdout a regular file.//
// Fixed: after a timeout or a cancelled ctx, Wait waits for the output's
// copies 2 s at most (copyDrain); a copy still blocked is left to end when
// its writer takes the bytes or fails.
func TestRedteam19RelayedStdoutStuckReaderHangsWait(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	dir := hostDir(t)
	for _, tc := range []struct {
		name string
		out  func(t *testing.T) (*os.File, func())
	}{
		{"control: a regular file", func(t *testing.T) (*os.File, func()) {
			f, err := os.CreateTemp(dir, "out")
			if err != nil {
				t.Fatal(err)
			}
			return f, func() { f.Close() }
		}},
		{"a socket whose peer does not read", func(t *testing.T) (*os.File, func()) {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			a, b := os.NewFile(uintptr(fds[0]), "sock-a"), os.NewFile(uintptr(fds[1]), "sock-b")
			return a, func() { a.Close(); b.Close() }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, closeOut := tc.out(t)
			cmd := exec.Command("/bin/sh", "-c", "head -c 8388608 /dev/zero; sleep 30")
			cmd.Stdout = out
			pr, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(time.Second))
			if err != nil {
				closeOut()
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := pr.Wait(); done <- err }()
			select {
			case err := <-done:
				t.Logf("Wait returned: %v", err)
				closeOut()
			case <-time.After(8 * time.Second):
				// Free the stuck copy so the test ends.
				closeOut()
				err := <-done
				t.Errorf("HANG: Wait had not returned 7 s after the 1 s timeout killed the program (the relay's copy into the caller's stuck socket blocks it); returned once the caller closed its end: %v", err)
			}
		})
	}
}
