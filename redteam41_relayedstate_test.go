//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
	"golang.org/x/sys/unix"
)

// TestRedteam41RelayedStreamState: the command tries to change, through its
// standard streams, state of the caller's open file descriptions that would
// outlast it: on a regular file opened O_APPEND (`cmd >> log`) it clears
// O_APPEND and sets O_NONBLOCK|O_ASYNC|O_NOATIME; on the caller's pipe as
// stdin it shrinks the pipe (F_SETPIPE_SZ) and sets O_NONBLOCK; on a
// socketpair end as stderr it shuts the socket down both ways, shrinks its
// buffers, sets SO_LINGER and SO_PASSCRED. Held in round 41: a regular
// file, a pipe and a socket are relayed through agentbox's own pipes
// (streamKind), so the caller's descriptions keep their flags, the pipe its
// size and the socket its state. Kept: it pins that none of these is handed
// as it is (the checks were spread over several tests before).
//
// The attack must fail: after Wait every recorded property is what it was.
// The control: the command's output reaches the log file and the socket.
func TestRedteam41RelayedStreamState(t *testing.T) {
	t.Parallel()
	m := newManager(t, agentbox.CIConfig())
	logf, err := os.OpenFile(filepath.Join(hostDir(t), "log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sock, peer := os.NewFile(uintptr(fds[0]), "sock"), os.NewFile(uintptr(fds[1]), "peer")
	defer sock.Close()
	defer peer.Close()
	type state struct {
		logFL, pipeFL, pipeSz, sockFL, rcv, snd, pass int
	}
	read := func() state {
		var s state
		s.logFL, _ = unix.FcntlInt(logf.Fd(), unix.F_GETFL, 0)
		s.pipeFL, _ = unix.FcntlInt(pr.Fd(), unix.F_GETFL, 0)
		s.pipeSz, _ = unix.FcntlInt(pr.Fd(), unix.F_GETPIPE_SZ, 0)
		s.sockFL, _ = unix.FcntlInt(sock.Fd(), unix.F_GETFL, 0)
		s.rcv, _ = unix.GetsockoptInt(int(sock.Fd()), unix.SOL_SOCKET, unix.SO_RCVBUF)
		s.snd, _ = unix.GetsockoptInt(int(sock.Fd()), unix.SOL_SOCKET, unix.SO_SNDBUF)
		s.pass, _ = unix.GetsockoptInt(int(sock.Fd()), unix.SOL_SOCKET, unix.SO_PASSCRED)
		return s
	}
	before := read()
	script := "import fcntl, os, socket, struct, sys\n" +
		"os.write(1, b\"CONTROL-OUT\\n\")\n" +
		"os.write(2, b\"CONTROL-ERR\\n\")\n" +
		"def t(f):\n" +
		"    try:\n" +
		"        f()\n" +
		"    except Exception:\n" +
		"        pass\n" +
		"t(lambda: fcntl.fcntl(1, fcntl.F_SETFL, os.O_NONBLOCK | os.O_ASYNC | os.O_NOATIME))\n" +
		"t(lambda: fcntl.fcntl(0, 1031, 4096))\n" + // F_SETPIPE_SZ
		"t(lambda: fcntl.fcntl(0, fcntl.F_SETFL, os.O_NONBLOCK))\n" +
		"t(lambda: fcntl.fcntl(2, fcntl.F_SETFL, os.O_NONBLOCK))\n" +
		"def so():\n" +
		"    s = socket.socket(fileno=os.dup(2))\n" +
		"    t(lambda: s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1))\n" +
		"    t(lambda: s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1))\n" +
		"    t(lambda: s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1))\n" +
		"    t(lambda: s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack(\"ii\", 1, 0)))\n" +
		"    t(lambda: s.shutdown(socket.SHUT_RDWR))\n" +
		"t(so)\n" +
		"sys.stdout.write(\"FD2 %s\\n\" % os.readlink(\"/proc/self/fd/2\"))\n"
	cmd := exec.Command("python3", "-c", script)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pr, logf, sock
	p, err := m.Start(context.Background(), cmd, agentbox.WithWorkingDir("/"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(logf.Name())
	if res.ExitCode != 0 || !strings.Contains(string(b), "CONTROL-OUT") {
		t.Fatalf("control: exit %d, log %q", res.ExitCode, b)
	}
	buf := make([]byte, 64)
	n, _ := peer.Read(buf)
	if !strings.Contains(string(buf[:n]), "CONTROL-ERR") {
		t.Fatalf("control: the socket got %q", buf[:n])
	}
	if after := read(); after != before {
		t.Errorf("the caller's streams changed: %+v, was %+v", after, before)
	}
	t.Logf("log %q", b)
	// The socket still carries data both ways.
	if _, err := sock.Write([]byte("x")); err != nil {
		t.Errorf("the caller's socket no longer writes: %v", err)
	}
	if _, err := peer.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	if n, err := sock.Read(buf); err != nil || string(buf[:n]) != "y" {
		t.Errorf("the caller's socket no longer reads: %q %v", buf[:n], err)
	}
}
