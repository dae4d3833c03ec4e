//go:build linux

package agentbox_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Red-team session 19 (standard streams): a socket handed to Start as
// stdin (any caller), and an anonymous pipe when the caller is root, are
// relayed: Process.input dups the caller's file and starts a goroutine
// that io.Copy's from it into the program's pipe. Nothing waits for or
// stops that goroutine: after the program has exited and Wait has
// returned, it is still blocked reading the caller's stream, and the next
// bytes the caller's stream carries are taken by it and thrown away into
// a pipe no one reads. The caller that reads its own stream after the run
// (as it can when the program was handed the descriptor itself: the
// program read nothing) loses them; the dup and the pipe's write end stay
// open until the stream ends (a descriptor leak per run).
//
// The test runs `true` (which reads nothing) with the caller's stream as
// stdin, then writes "hello" into the stream after Wait and expects the
// caller to read it back. The control: the same with a stdin nobody
// relays (nil).
//
// Fixed: a socket, or a root caller's pipe, as stdin is relayed by a
// stdinFile in stream mode, whose copy waits for input in steps and stops
// once the program's tree is gone.
func TestRedteam19RelayedStdinEatsCallerInputAfterWait(t *testing.T) {
	// Not parallel: it counts this process's descriptors.
	m := newManager(t, agentbox.CIConfig())
	// A first run opens what the Manager keeps open.
	if res, err := m.Exec(context.Background(), "true"); err != nil || res.ExitCode != 0 {
		t.Fatalf("warm-up: %v %+v", err, res)
	}
	type stream struct {
		read  *os.File     // what the caller hands the program and reads after
		write func() error // feeds "hello" into it after the run
		close func()
	}
	pipe := func(t *testing.T) stream {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		return stream{r, func() error { _, err := w.Write([]byte("hello")); return err }, func() { r.Close(); w.Close() }}
	}
	socket := func(t *testing.T) stream {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		a, b := os.NewFile(uintptr(fds[0]), "sock-a"), os.NewFile(uintptr(fds[1]), "sock-b")
		c, err := net.FileConn(b)
		if err != nil {
			t.Fatal(err)
		}
		b.Close()
		return stream{a, func() error { _, err := c.Write([]byte("hello")); return err }, func() { a.Close(); c.Close() }}
	}
	for _, tc := range []struct {
		name    string
		make    func(*testing.T) stream
		give    bool // hand the stream to the program
		skipNon bool // relayed only when the caller is root
	}{
		{"control: the caller's pipe, not handed over", pipe, false, false},
		{"the caller's anonymous pipe", pipe, true, false},
		{"the caller's socket", socket, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skipNon && os.Geteuid() != 0 {
				t.Skip("a non-root caller's pipe goes to the program as it is")
			}
			s := tc.make(t)
			defer s.close()
			// Runs that leak leave their descriptors open for good; the
			// Manager's warm inits come and go. So: several runs, and the
			// count settled after them against the count before.
			const runs = 6
			before := countFDs(t)
			for range runs {
				cmd := exec.Command("/bin/true")
				if tc.give {
					cmd.Stdin = s.read
				}
				pr, err := m.Start(context.Background(), cmd)
				if err != nil {
					t.Fatal(err)
				}
				if res, err := pr.Wait(); err != nil || res.ExitCode != 0 {
					t.Fatalf("wait: %v %+v", err, res)
				}
			}
			n := countFDs(t) - before
			for deadline := time.Now().Add(2 * time.Second); n >= runs && time.Now().Before(deadline); n = countFDs(t) - before {
				time.Sleep(50 * time.Millisecond)
			}
			if n >= runs {
				t.Errorf("LEAK: %d descriptors more after %d runs than before them", n, runs)
			}
			if err := s.write(); err != nil {
				t.Fatal(err)
			}
			// The caller reads its stream a moment later, as a caller that
			// goes on with its own work does.
			time.Sleep(200 * time.Millisecond)
			s.read.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			buf := make([]byte, 16)
			n, err := s.read.Read(buf)
			t.Logf("the caller read %q (%v) from its own stream after the run", buf[:n], err)
			if string(buf[:n]) != "hello" {
				t.Errorf("LOST: after Wait returned, agentbox's relay took the caller's next input (%q read, want \"hello\"): the program had exited, but the copy goroutine was still reading the caller's stream", buf[:n])
			}
		})
	}
}

// countFDs counts this process's open descriptors.
func countFDs(t *testing.T) int {
	t.Helper()
	e, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(e)
}
