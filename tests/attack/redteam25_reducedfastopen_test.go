//go:build linux

package attack_test

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestRedteam25ReducedTierFastOpen connects from the reduced tier without a
// network to a TCP service on the host's loopback with sendto(2) and
// MSG_FASTOPEN (TCP Fast Open, client side on by default:
// net.ipv4.tcp_fastopen=1) instead of connect(2), and then over IPv6 and an
// IPv4-mapped address with plain connect(2). Landlock's
// LANDLOCK_ACCESS_NET_CONNECT_TCP is checked in the socket_connect hook;
// tcp_sendmsg_fastopen calls __inet_stream_connect itself, so whether the
// hook runs for it is what this test finds out. The controls: a write to
// the writable root, a TCP socket can be made, and the same service is
// reached from the host.
//
// New coverage: earlier tests connect only with connect(2)
// (TestReducedTier's host_tcp) or with another protocol (MPTCP).
func TestRedteam25ReducedTierFastOpen(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier); run as an unprivileged user")
	}
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ln6, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln6.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	port6 := ln6.Addr().(*net.TCPAddr).Port
	got := make(chan string, 8)
	serve := func(l net.Listener) {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				b, _ := io.ReadAll(io.LimitReader(c, 64))
				got <- fmt.Sprintf("%s from %s: %q", l.Addr(), c.RemoteAddr(), b)
			}()
		}
	}
	go serve(ln)
	go serve(ln6)
	// The host's own connection, to show the service answers.
	if c, err := net.Dial("tcp", ln.Addr().String()); err != nil {
		t.Fatalf("host control: %v", err)
	} else {
		c.Close()
		<-got
	}

	py := func(body string) string {
		return "exec:/usr/bin/python3|-c|import socket,sys\ntry:\n" + body +
			"\n print('sent')\nexcept OSError as e:\n print(e); sys.exit(1)"
	}
	w := newDir(t, 0o755)
	ps := []probe{
		control("write_root", "write:"+w+"/ok", ""),
		reducedTCPSocket(),
		attack("connect_v4", py(fmt.Sprintf(" s=socket.socket(); s.connect(('127.0.0.1',%d)); s.send(b'connect')", port))),
		attack("fastopen_v4", py(fmt.Sprintf(" s=socket.socket(); s.sendto(b'fastopen',socket.MSG_FASTOPEN,('127.0.0.1',%d)); s.send(b'-more')", port))),
		attack("fastopen_mapped", py(fmt.Sprintf(" s=socket.socket(socket.AF_INET6); s.sendto(b'mapped',socket.MSG_FASTOPEN,('::ffff:127.0.0.1',%d)); s.send(b'-more')", port))),
		attack("connect_mapped", py(fmt.Sprintf(" s=socket.socket(socket.AF_INET6); s.connect(('::ffff:127.0.0.1',%d)); s.send(b'mapped-connect')", port))),
		attack("fastopen_v6", py(fmt.Sprintf(" s=socket.socket(socket.AF_INET6); s.sendto(b'v6',socket.MSG_FASTOPEN,('::1',%d)); s.send(b'-more')", port6))),
		attack("fastopen_connect_opt", py(fmt.Sprintf(" s=socket.socket(); s.setsockopt(socket.IPPROTO_TCP,30,1); s.connect(('127.0.0.1',%d)); s.send(b'tfo-connect')", port))),
	}
	for _, mode := range []string{"blocked", "filtered"} {
		refused, res := runBinInChild(t, "no-capabilities", false, w, attackerBin, probeArgs(ps), reducedNetworkEnv+"="+mode)
		if res == nil {
			t.Fatalf("agentbox refused: %s", refused)
		}
		o := parseOutput(res.Stdout)
		if !o.started || !o.done {
			t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		t.Logf("%s: layers %q\nattacker output:\n%s", mode, res.Layers, res.Stdout)
		checkProbes(t, o, ps)
	}
	var escapes []string
	for done := false; !done; {
		select {
		case s := <-got:
			escapes = append(escapes, s)
		case <-time.After(3 * time.Second):
			done = true
		}
	}
	if len(escapes) > 0 {
		t.Errorf("ESCAPE: the host's loopback service was reached from the reduced tier without a network:\n%s", strings.Join(escapes, "\n"))
	}
}
