//go:build linux

package agentbox_test

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 20 (standard streams): Start with a cmd.Stdin that is
// an io.Reader but not an *os.File (a net.Conn, an io.PipeReader, a
// bufio.Reader over the caller's input) feeds the program through a pipe
// by a goroutine `io.Copy(wr, r); wr.Close()` (Process.input, the
// non-file branch). Nothing stops or waits for that goroutine: it is
// blocked in r.Read while the program runs, and stays blocked there after
// the program has exited and Wait has returned. The caller's next input
// (the next request on a connection it hands one command per request) is
// taken by that goroutine, written into a pipe no one reads (EPIPE) and
// thrown away; the goroutine and its pipe end live until the caller's
// reader ends. This is TestRedteam19RelayedStdinEatsCallerInputAfterWait
// again, fixed there only for an *os.File (stdinFile's copy stops in
// finish). os/exec's Wait waits for such a copy (or returns ErrWaitDelay
// after WaitDelay, telling the caller a copy is still running); agentbox's
// Wait returns nil and leaves it reading behind the caller's back.
//
// The program (`true`) reads nothing; after Wait the peer sends "hello";
// the caller reads its connection. Expected: "hello". Control: the same
// connection, not handed to the program.
//
// Severity: low (data loss of the caller's input, a goroutine and a pipe
// leaked per run); affects root and unprivileged callers.
//
// Fixed: Wait stops the copy of a Stdin that has a read deadline (a
// net.Conn, an os.Pipe: copyReader) once the program's tree is gone, and
// gives the reader its deadline back; a reader without one is a README
// limit.
func TestRedteam20ReaderStdinEatsCallerInputAfterWait(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	for _, tc := range []struct {
		name string
		give bool
	}{
		{"control: the caller's connection, not handed over", false},
		{"the caller's connection as a net.Conn", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			conn := func(fd int, name string) net.Conn {
				f := os.NewFile(uintptr(fd), name)
				defer f.Close()
				c, err := net.FileConn(f)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			mine, peer := conn(fds[0], "mine"), conn(fds[1], "peer")
			defer mine.Close()
			defer peer.Close()
			cmd := exec.Command("/bin/true")
			if tc.give {
				cmd.Stdin = mine
			}
			pr, err := m.Start(context.Background(), cmd)
			if err != nil {
				t.Fatal(err)
			}
			if res, err := pr.Wait(); err != nil || res.ExitCode != 0 {
				t.Fatalf("wait: %v %+v", err, res)
			}
			if _, err := peer.Write([]byte("hello")); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
			mine.SetReadDeadline(time.Now().Add(time.Second))
			buf := make([]byte, 16)
			n, err := io.ReadAtLeast(mine, buf, 5)
			t.Logf("the caller read %q (%v) from its connection after the run", buf[:n], err)
			if string(buf[:n]) != "hello" {
				t.Errorf("LOST: after Wait returned, agentbox's stdin copy took the caller's next input (%q read, want \"hello\")", buf[:n])
			}
		})
	}
}
