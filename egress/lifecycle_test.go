package egress

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// openConnect opens a CONNECT tunnel and returns the connection (after the
// 200) or the refusal response.
func openConnect(t *testing.T, addr, target string) (net.Conn, *http.Response) {
	t.Helper()
	c := mustDialProxy(t, addr)
	io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		return nil, resp
	}
	return &bufConn{Conn: c, r: br}, resp
}

func TestTunnelLimit(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test:7000"}}, MaxTunnels: 2})
	h.dial.route(ap(addrAllowed, 7000), echoServer(t))
	a, _ := openConnect(t, h.addr, "allowed.test:7000")
	b, _ := openConnect(t, h.addr, "allowed.test:7000")
	if a == nil || b == nil {
		t.Fatal("first two tunnels refused")
	}
	roundTrip(t, a, "a")
	roundTrip(t, b, "b")

	c, resp := openConnect(t, h.addr, "allowed.test:7000")
	if c != nil || resp.StatusCode != 503 || resp.Header.Get("X-Agentbox-Deny") != RuleLimitTunnels {
		t.Fatalf("third tunnel: %v", resp)
	}
	if got := socksRaw(t, h.addr, socksDomainReq(1, "allowed.test", 7000)); got != socksReplyGeneralFailure {
		t.Fatalf("SOCKS5 beyond the limit: reply 0x%02x", got)
	}
	if st := h.p.Stats(); st.ActiveTunnels != 2 {
		t.Errorf("active %d", st.ActiveTunnels)
	}

	a.Close()
	waitStats(t, h.p, func(s Stats) bool { return s.ActiveTunnels == 1 })
	d, _ := openConnect(t, h.addr, "allowed.test:7000")
	if d == nil {
		t.Fatal("tunnel refused after one closed")
	}
	roundTrip(t, d, "d")
	var limits int
	for _, dd := range h.sink.all() {
		if dd.Rule == RuleLimitTunnels {
			limits++
			if dd.Allowed {
				t.Error("limit decision recorded as allowed")
			}
		}
	}
	if limits != 2 {
		t.Errorf("%d limit decisions recorded, want 2", limits)
	}
}

func TestHandshakeTimeout(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"*"}}, HandshakeTimeout: 150 * time.Millisecond})
	for _, name := range []string{"silent", "trickle"} {
		t.Run(name, func(t *testing.T) {
			c := mustDialProxy(t, h.addr)
			start := time.Now()
			closed := make(chan struct{})
			go func() {
				defer close(closed)
				_, _ = io.Copy(io.Discard, c)
			}()
			if name == "trickle" {
				// One byte every 30 ms must not stretch the deadline.
			loop:
				for _, b := range []byte("GET http://allowed.test/ HTTP/1.1\r\n") {
					select {
					case <-closed:
						break loop
					case <-time.After(30 * time.Millisecond):
						if _, err := c.Write([]byte{b}); err != nil {
							break loop
						}
					}
				}
			}
			select {
			case <-closed:
			case <-time.After(3 * time.Second):
				t.Fatal("connection still open")
			}
			if el := time.Since(start); el > time.Second {
				t.Errorf("closed after %v, want about 150ms", el)
			}
		})
	}
}

func TestIdleTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test:*"}}, IdleTimeout: idle})
	h.dial.route(ap(addrAllowed, 7000), echoServer(t))
	// Port 7001: a server that talks every 50 ms for 3 idle periods without
	// reading.
	h.dial.route(ap(addrAllowed, 7001), tcpServer(t, func(c net.Conn) {
		for range 18 {
			if _, err := c.Write([]byte("t")); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}))

	t.Run("silent tunnel closes", func(t *testing.T) {
		c, _ := openConnect(t, h.addr, "allowed.test:7000")
		roundTrip(t, c, "x")
		start := time.Now()
		_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
		_, err := c.Read(make([]byte, 1))
		var ne net.Error
		if err == nil || errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("idle tunnel not closed: %v", err)
		}
		if el := time.Since(start); el < idle/2 || el > 2*time.Second {
			t.Errorf("closed after %v, want about %v", el, idle)
		}
	})
	t.Run("client traffic keeps it open", func(t *testing.T) {
		c, _ := openConnect(t, h.addr, "allowed.test:7000")
		for range 6 {
			roundTrip(t, c, "k")
			time.Sleep(idle / 3)
		}
	})
	t.Run("server traffic alone keeps it open", func(t *testing.T) {
		c, _ := openConnect(t, h.addr, "allowed.test:7001")
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := io.Copy(io.Discard, c)
		if n != 18 {
			t.Errorf("got %d of 18 server bytes over %v (err %v)", n, 18*50*time.Millisecond, err)
		}
	})
	waitStats(t, h.p, func(s Stats) bool { return s.ActiveTunnels == 0 })
}

func TestServerSpeaksFirstAndHalfClose(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test:*"}}})
	h.dial.route(ap(addrAllowed, 25), tcpServer(t, func(c net.Conn) {
		io.WriteString(c, "220 ready\r\n")
		b, _ := io.ReadAll(c) // until the client half-closes
		io.WriteString(c, "got "+string(b))
	}))
	c, _ := openConnect(t, h.addr, "allowed.test:25")
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil || line != "220 ready\r\n" {
		t.Fatalf("banner %q, %v", line, err)
	}
	io.WriteString(c, "HELO x")
	c.(*bufConn).CloseWrite()
	rest, err := io.ReadAll(br)
	if err != nil || string(rest) != "got HELO x" {
		t.Fatalf("after half-close: %q, %v", rest, err)
	}
}

func TestOnRequestIntegration(t *testing.T) {
	var asked atomic.Value
	h := newHarness(t, Config{Policy: Policy{
		Allowed: []string{"allowed.test"},
		OnRequest: func(ctx context.Context, host string, port int) (bool, error) {
			asked.Store(host)
			return host == "www.allowed.test", nil
		},
	}})
	h.dial.route(ap(addrAllowed, 443), echoServer(t))
	c, _ := openConnect(t, h.addr, "WWW.Allowed.Test.:443")
	if c == nil {
		t.Fatal("callback-approved tunnel refused")
	}
	if asked.Load() != "www.allowed.test" {
		t.Errorf("callback saw %v, want the normalised name", asked.Load())
	}
	_, resp := openConnect(t, h.addr, "other.test:443")
	if resp.StatusCode != 403 || resp.Header.Get("X-Agentbox-Deny") != RuleCallbackDeny {
		t.Errorf("callback refusal: %v", resp)
	}
}

func TestShutdownClosesTunnels(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test:7000"}}})
	h.dial.route(ap(addrAllowed, 7000), echoServer(t))
	c, _ := openConnect(t, h.addr, "allowed.test:7000")
	roundTrip(t, c, "before")
	idle := mustDialProxy(t, h.addr) // mid-handshake connection

	h.cancel()
	select {
	case err := <-h.serveErr:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		h.serveErr <- nil // for the harness cleanup
	case <-time.After(3 * time.Second):
		t.Fatal("Serve did not return")
	}
	for _, conn := range []net.Conn{c, idle} {
		_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := conn.Read(make([]byte, 1)); err == nil || strings.Contains(err.Error(), "timeout") {
			t.Errorf("connection not closed on shutdown: %v", err)
		}
	}
	// Asked of the listener itself: a dial could reach another test's
	// listener that took the freed port.
	_ = h.ln.SetDeadline(time.Now().Add(time.Second))
	if _, err := h.ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("listener not closed: %v", err)
	}
	if st := h.p.Stats(); st.ActiveTunnels != 0 {
		t.Errorf("active tunnels after shutdown: %d", st.ActiveTunnels)
	}
}

func TestServeReturnsWhenListenerClosed(t *testing.T) {
	p, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Serve(context.Background(), l) }()
	time.Sleep(10 * time.Millisecond)
	l.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Serve did not return after the listener closed")
	}
}

// TestEveryDecisionRecorded drives one of each kind of outcome and checks
// that the sink and the counters agree.
func TestEveryDecisionRecorded(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test:*", "rebind.test"}, Denied: []string{"evil.test"}}})
	h.dial.route(ap(addrAllowed, 7000), echoServer(t))
	c, _ := openConnect(t, h.addr, "allowed.test:7000")
	roundTrip(t, c, "ok")
	openConnect(t, h.addr, "evil.test:443")
	socksRaw(t, h.addr, socksIPReq(3, netip.IPv4Unspecified(), 0))
	socksRaw(t, h.addr, socksDomainReq(1, "rebind.test", 443))
	rawRequest(t, h, "GET http://allowed.test:7000/ HTTP/1.1\r\nHost: evil.test\r\n\r\n")
	ds := h.sink.waitFor(t, 5)
	rules := map[string]bool{}
	for _, d := range ds {
		rules[d.Rule] = true
		if d.Time.IsZero() || d.Proto == "" || d.Reason == "" {
			t.Errorf("incomplete decision %+v", d)
		}
	}
	for _, r := range []string{"allow:allowed.test:*", "deny:evil.test", RuleUnsupported, "guard:loopback", RuleHostMismatch} {
		if !rules[r] {
			t.Errorf("no decision with rule %q in %+v", r, ds)
		}
	}
	st := h.p.Stats()
	if st.Allowed != 1 || st.Denied != 4 || int(st.Allowed+st.Denied) != len(ds) {
		t.Errorf("stats %+v vs %d decisions", st, len(ds))
	}
}
