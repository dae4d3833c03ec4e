package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestRedteam49HalfCloseOutlivesIdle: a tunnel whose client half-closes
// (shutdown(SHUT_WR)) right after the CONNECT's 200, before sending a
// byte, is never ended by the idle limit. inspectFirstFlight reads EOF,
// passes the half-close upstream (closeWrite) and returns; runTunnel then
// waits (<-down) for its upstream watcher, which sits in waitData on the
// upstream with no read deadline (runTunnel cleared it), until the
// upstream sends something or closes. An upstream that stays quiet and
// open (one the agent runs on an allowed host, or any server that waits
// out its own timer after a peer's EOF) holds the tunnel: its slot
// (MaxTunnels), the upstream and client sockets and two goroutines, with
// not a byte in either direction, forever, even after the client has
// closed its socket altogether. Config.IdleTimeout promises to close "a
// tunnel ... after this long without a byte in either direction".
//
// Severity: low (the idle and tunnel limits do not hold for such
// tunnels; MaxTunnels of them leave the command's proxy refusing every
// new connection with limit:tunnels until the command ends).
// Code at fault: runTunnel (intercept.go): on the !ok path after a
// half-close it waits for the watcher goroutine, whose waitData has no
// deadline and is not bounded by the idle timeout.
// Control: the same tunnel whose client stays silent without half-closing
// is closed after the idle timeout.
//
// Found by red-team round 49 (low). Fixed: when the client's first flight
// never comes, runTunnel waits for the upstream's first bytes at most the
// idle limit.
func TestRedteam49HalfCloseOutlivesIdle(t *testing.T) {
	const idle = 300 * time.Millisecond
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}, IdleTimeout: idle})
	// A quiet upstream: it reads until its peer's EOF and then keeps the
	// connection open without a word (until the test ends). One for the
	// control (port 443), one for the attack (port 80).
	done := make(chan struct{})
	quiet := func(sawEOF *atomic.Int64) string {
		return tcpServer(t, func(c net.Conn) {
			_ = c.SetDeadline(time.Now().Add(20 * time.Second))
			if _, err := io.Copy(io.Discard, c); err == nil {
				sawEOF.Add(1)
			}
			select {
			case <-done:
			case <-time.After(20 * time.Second):
			}
		})
	}
	var ctlEOF, sawEOF atomic.Int64
	h.dial.route(ap(addrAllowed, 443), quiet(&ctlEOF))
	h.dial.route(ap(addrAllowed, 80), quiet(&sawEOF))
	t.Cleanup(func() { close(done) }) // runs before the servers' clean-up

	open := func(t *testing.T, port string) *net.TCPConn {
		c := mustDialProxy(t, h.addr)
		_, _ = io.WriteString(c, "CONNECT allowed.test:"+port+" HTTP/1.1\r\nHost: allowed.test:"+port+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"})
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT allowed.test:%s: %v %v", port, resp, err)
		}
		return c.(*net.TCPConn)
	}
	waitActive := func(want int64, within time.Duration) int64 {
		deadline := time.Now().Add(within)
		for {
			n := h.p.Stats().ActiveTunnels
			if n == want || time.Now().After(deadline) {
				return n
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// Control: a silent client that does not half-close is closed by the
	// idle limit.
	c := open(t, "443")
	if n := waitActive(0, 10*idle); n != 0 {
		t.Fatalf("control: a silent tunnel is still open %v after the %v idle limit (%d active)", 10*idle, idle, n)
	}
	_ = c.Close()

	// The attack: half-close at once, then close the socket altogether.
	c = open(t, "80")
	if err := c.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	// Premise: the proxy passed the half-close on (the upstream read EOF).
	deadline := time.Now().Add(5 * time.Second)
	for sawEOF.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if sawEOF.Load() == 0 {
		t.Fatal("premise: the upstream never saw the client's half-close")
	}
	_ = c.Close()
	if n := waitActive(0, 10*idle); n != 0 {
		t.Errorf("a tunnel whose client half-closed and then closed is still open %v later, with no byte in either direction "+
			"(idle limit %v): %d active tunnel(s) hold a slot of MaxTunnels", 10*idle, idle, n)
	}
}
