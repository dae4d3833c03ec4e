package agentbox_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestSocketStdinKeptOut hands the command a host TCP connection as its
// standard input. Start relays it through a pipe: the command reads what
// the peer sends (control) but holds no socket to connect elsewhere. Wrap,
// which hands files over as they are, refuses it and says what to do.
// (TestRT6SocketStdioReconnect attacks a socket as standard output.)
func TestSocketStdinKeptOut(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write([]byte("from the peer\n"))
		time.Sleep(5 * time.Second)
	}()
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	f, err := conn.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	cmd := exec.Command("/bin/sh", "-c", "read line; echo \"got: $line\"; [ -S /proc/self/fd/0 ] && echo SOCKET || echo NOT-A-SOCKET")
	cmd.Stdin = f
	cleanup, err := m.Wrap(context.Background(), cmd)
	if !errors.Is(err, agentbox.ErrConfigInvalid) || !strings.Contains(err.Error(), "use Start, which relays it") {
		if err == nil {
			cleanup()
		}
		t.Fatalf("Wrap with a socket as Stdin: %v; want ErrConfigInvalid saying to use Start", err)
	}

	var out bytes.Buffer
	cmd = exec.Command("/bin/sh", "-c", "read line; echo \"got: $line\"; [ -S /proc/self/fd/0 ] && echo SOCKET || echo NOT-A-SOCKET")
	cmd.Stdin, cmd.Stdout = f, &out
	p, err := m.Start(context.Background(), cmd, agentbox.WithTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Wait()
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Start: %+v %v", res, err)
	}
	if got := out.String(); got != "got: from the peer\nNOT-A-SOCKET\n" {
		t.Fatalf("the command printed %q; want the peer's line, read through a pipe", got)
	}
}
