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

// Red-team session 20 (standard streams, Wrap): Wrap turns a socket (or a
// regular file) handed as cmd.Stdout or cmd.Stderr into a plain io.Writer
// (wrapStreams), so that os/exec relays it through a pipe of its own and
// the program never holds the host's socket. That changes what cmd.Wait
// waits for: with an *os.File, os/exec hands the descriptor over and Wait
// returns when the process exits; with a plain writer, Wait also waits
// for its copying goroutine, until every byte is written to the socket.
// Start bounds that wait after a timeout (copyDrain, the fix of
// TestRedteam19RelayedStdoutStuckReaderHangsWait); Wrap does not, and sets
// no cmd.WaitDelay. A program that fills its stdout while the socket's
// peer does not read (a stuck or malicious consumer, a peer that stopped
// reading) is killed by WithTimeout, and cmd.Wait then never returns: the
// caller hangs, though the timeout fired and the sandbox is gone.
//
// The program writes 8 MiB to stdout and sleeps; the socket's peer reads
// nothing; the timeout is 1 s. Expected: cmd.Wait returns within a few
// seconds. The control: the same with stdout a regular file.
//
// Severity: medium (a denial of service of the caller: the timeout meant
// to bound the untrusted command does not bound the call); affects root
// and unprivileged callers of Wrap.
//
// Fixed: Wrap's plain writers are boundedWriters, whose writes are given
// up copyDrain after the watch kills the sandbox (or at cleanup). Not by
// cmd.WaitDelay: os/exec then closes its own pipe, which does not end a
// copy blocked writing into the caller's socket, and it would cut a slow
// consumer's output after a normal exit.
func TestRedteam20WrapSocketStdoutTimeoutHangsWait(t *testing.T) {
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
			cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithTimeout(time.Second))
			if err != nil {
				closeOut()
				t.Fatal(err)
			}
			defer cleanup()
			if err := cmd.Start(); err != nil {
				closeOut()
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				t.Logf("cmd.Wait returned: %v", err)
				closeOut()
			case <-time.After(10 * time.Second):
				closeOut() // free the stuck copy so the test ends
				err := <-done
				t.Errorf("HANG: cmd.Wait had not returned 9 s after the 1 s timeout killed the sandbox (os/exec's copy into the caller's stuck socket, which Wrap made a plain writer, blocks it); returned once the caller closed its end: %v", err)
			}
		})
	}
}
