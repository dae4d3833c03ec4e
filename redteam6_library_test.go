package agentbox_test

// Red-team session 6: the root package's library API as a host program that
// embeds agentbox uses it (Wrap, Start, Exec, Manager's life cycle).

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt6Listen is a host loopback service that reports the first bytes each
// connection sends.
func rt6Listen(t *testing.T) (net.Listener, <-chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got := make(chan string, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
				buf := make([]byte, 256)
				n, _ := c.Read(buf)
				got <- string(buf[:n])
			}()
		}
	}()
	return l, got
}

// rt6Script writes a program into a directory the sandbox reads, so that
// the classifier (which only sees "python3 FILE") is not what is tested.
func rt6Script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(hostDir(t), "attack.py")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A host program hands the sandboxed command a TCP connection as its
// standard output (inetd style: conn.File()). The command may write to
// that connection (the control), but must not turn the socket of the host's
// network namespace into a way out of its own blocked network: a TCP socket
// can be disconnected (connect with AF_UNSPEC) and connected again anywhere,
// here to another host loopback service.
func TestRT6SocketStdioReconnect(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig()) // network blocked
	for _, api := range []string{"Wrap", "Start"} {
		t.Run(api, func(t *testing.T) {
			handed, fromHanded := rt6Listen(t)
			other, fromOther := rt6Listen(t)
			conn, err := net.Dial("tcp", handed.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			f, err := conn.(*net.TCPConn).File()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			script := rt6Script(t, `
import ctypes, socket, struct, sys, os
os.write(1, b"hello over the handed connection")
libc = ctypes.CDLL(None, use_errno=True)
sa = struct.pack("H14s", 0, b"")
print("disconnect", libc.connect(1, sa, len(sa)), ctypes.get_errno(), file=sys.stderr)
s = socket.socket(fileno=1)
s.settimeout(3)
s.connect(("127.0.0.1", int(sys.argv[1])))
s.send(b"ESCAPED")
print("reconnected", file=sys.stderr)
`)
			var errb bytes.Buffer
			cmd := exec.Command("/usr/bin/python3", script, strconv.Itoa(other.Addr().(*net.TCPAddr).Port))
			cmd.Stdout, cmd.Stderr = f, &errb
			switch api {
			case "Wrap":
				cleanup, err := m.Wrap(context.Background(), cmd, agentbox.WithTimeout(15*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				_ = cmd.Run()
				cleanup()
			case "Start":
				p, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(15*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Wait(); err != nil {
					t.Fatal(err)
				}
			}
			// The control: what the command wrote reached the handed
			// connection.
			select {
			case s := <-fromHanded:
				if s != "hello over the handed connection" {
					t.Fatalf("the handed connection got %q (stderr %s)", s, errb.String())
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("the command's output never reached the handed connection (stderr %s)", errb.String())
			}
			select {
			case s := <-fromOther:
				t.Fatalf("a command of a blocked network reached another host loopback service through the socket it was handed as stdout: it got %q (stderr %s)", s, errb.String())
			case <-time.After(500 * time.Millisecond):
			}
		})
	}
}
