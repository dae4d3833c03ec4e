//go:build linux

package attack_test

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// hostListeners are services on the host that a sandbox must not reach: TCP
// on the host's loopback (IPv4 and, where available, IPv6), and unix
// sockets, stream and datagram, by path (in a world-writable directory,
// with world-writable sockets) and abstract. Every connection or datagram
// they get is counted.
type hostListeners struct {
	tcp, tcp6                  string // "" when the host has no IPv6 loopback
	streamPath, dgramPath      string
	streamAbstract, dgramAbstr string // "@name"
	hits                       atomic.Int64
	events                     chan string
}

func newHostListeners(t *testing.T) *hostListeners {
	t.Helper()
	h := &hostListeners{events: make(chan string, 64)}
	hit := func(what string) {
		h.hits.Add(1)
		select {
		case h.events <- what:
		default:
		}
	}
	serve := func(l net.Listener, what string) {
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				hit(what)
				c.Close()
			}
		}()
	}
	serveDgram := func(c *net.UnixConn, what string) {
		t.Cleanup(func() { c.Close() })
		go func() {
			buf := make([]byte, 256)
			for {
				n, err := c.Read(buf)
				if err != nil {
					return
				}
				hit(what + ": " + strconv.Quote(string(buf[:n])))
			}
		}()
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.tcp = l.Addr().String()
	serve(l, "tcp "+h.tcp)
	if l6, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		h.tcp6 = l6.Addr().String()
		serve(l6, "tcp6 "+h.tcp6)
	}

	dir := newDir(t, 0o777)
	h.streamPath = filepath.Join(dir, "stream.sock")
	ls, err := net.Listen("unix", h.streamPath)
	if err != nil {
		t.Fatal(err)
	}
	serve(ls, "unix stream "+h.streamPath)
	h.dgramPath = filepath.Join(dir, "dgram.sock")
	ld, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: h.dgramPath, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	serveDgram(ld, "unix datagram "+h.dgramPath)
	for _, p := range []string{h.streamPath, h.dgramPath} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}

	tag := filepath.Base(dir)
	h.streamAbstract = "@agentbox-attack-stream-" + tag
	la, err := net.Listen("unix", h.streamAbstract)
	if err != nil {
		t.Fatal(err)
	}
	serve(la, "abstract stream "+h.streamAbstract)
	h.dgramAbstr = "@agentbox-attack-dgram-" + tag
	lad, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: h.dgramAbstr, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	serveDgram(lad, "abstract datagram "+h.dgramAbstr)
	return h
}

// expectUntouched fails the test for every connection or datagram a host
// listener received.
func (h *hostListeners) expectUntouched(t *testing.T) {
	t.Helper()
	time.Sleep(50 * time.Millisecond) // let accept loops and readers catch up
	if n := h.hits.Load(); n > 0 {
		for i := int64(0); i < n && i < 64; i++ {
			select {
			case e := <-h.events:
				t.Errorf("ESCAPE: a host service was reached from the sandbox: %s", e)
			default:
			}
		}
	}
}

// unixProbes are the attacks on the host's unix sockets, with the controls
// that unix sockets the sandbox makes for itself still work.
func (h *hostListeners) unixProbes() []probe {
	return []probe{
		control("socketpair_stream", "pairstream", "round trip"),
		attack("unix_stream_path", "unixstream:"+h.streamPath),
		attack("unix_stream_abstract", "unixstream:"+h.streamAbstract),
		attack("unix_dgram_path", "unixdgram:"+h.dgramPath),
		attack("unix_dgram_abstract", "unixdgram:"+h.dgramAbstr),
		attack("socketpair_dgram_to_host_path", "pairdgram:"+h.dgramPath),
		attack("socketpair_dgram_to_host_abstract", "pairdgram:"+h.dgramAbstr),
	}
}

// TestNetworkBlocked attacks the blocked network of CIConfig: the host's
// loopback, its unix sockets, raw and exotic sockets, and any route out,
// with the sandbox's own loopback as the control.
func TestNetworkBlocked(t *testing.T) {
	t.Parallel()
	h := newHostListeners(t)
	ps := []probe{
		control("own_loopback_tcp", "tcpself", "round trip"),
		control("udp_socket", "socket:inet:dgram", ""),
		control("netlink_route_socket", "socket:netlink:raw:0", ""),
		attack("host_loopback_tcp", "tcp:"+h.tcp),
		// A UDP connect sends nothing; it fails when no route exists.
		attack("route_out", "udproute:192.0.2.1:9"),
		attack("raw_icmp", "socket:inet:raw:1"),
		attack("raw_ipv6", "socket:inet6:raw:58"),
		attack("packet", "socket:packet:raw:768"),
		attack("packet_dgram", "socket:packet:dgram:768"),
		attack("vsock", "socket:vsock:stream"),
		attack("alg", "socket:alg:seqpacket"),
		attack("xdp", "socket:xdp:raw"),
		attack("key", "socket:key:raw:2"),
		attack("tipc", "socket:tipc:dgram"),
	}
	if h.tcp6 != "" {
		ps = append(ps, attack("host_loopback_tcp6", "tcp:"+h.tcp6))
	}
	ps = append(ps, h.unixProbes()...)
	runProbes(t, ciMgr, ps)
	h.expectUntouched(t)
}

// TestNetworkAllowedUnixSockets shares the host's network (so abstract unix
// sockets share a namespace with the host's) and checks that the host's
// unix sockets stay out of reach; the control is that the host's loopback
// TCP, which the allowed mode grants, is reachable.
func TestNetworkAllowedUnixSockets(t *testing.T) {
	t.Parallel()
	h := newHostListeners(t)
	ps := append([]probe{control("host_loopback_tcp", "tcp:"+h.tcp, "connected")}, h.unixProbes()...)
	ps = append(ps, attack("packet", "socket:packet:raw:768"), attack("raw_icmp", "socket:inet:raw:1"))
	runProbes(t, ciMgr, ps, agentbox.WithNetwork(agentbox.NetworkAllowed))
	// The listener counts a connection when it accepts it, which on a busy
	// machine may come a little after the client has connected.
	for deadline := time.Now().Add(5 * time.Second); h.hits.Load() < 1 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := h.hits.Load(); n != 1 {
		// Exactly the control's connection.
		for i := int64(0); i < n; i++ {
			select {
			case e := <-h.events:
				t.Logf("host service reached: %s", e)
			default:
			}
		}
		t.Errorf("host services got %d connections/datagrams, want exactly 1 (the TCP control)", n)
	}
}
