package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestRedteam28HelloRetryStall attacks the resources of the HelloRetryRequest
// check (spliceTLS): a tunnel that waits for the server's first answer, or
// for the client's second ClientHello, must not outlive the idle or
// handshake limit (a held slot counts against MaxTunnels). Three stalls: a
// server that reads the hello and never answers (the client closes at
// once); a server that answers with a HelloRetryRequest to a client that
// never sends its second hello; the same client trickling a CCS and early
// data a record at a time, which must not stretch the handshake limit.
// Beside them, a real Go client and server whose curves force a
// HelloRetryRequest handshake through the proxy (CONNECT and SOCKS5) and
// exchange data: no test had a real HRR handshake end to end.
// Held: kept as new coverage.
func TestRedteam28HelloRetryStall(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}},
		IdleTimeout: 2 * time.Second, HandshakeTimeout: 2 * time.Second})
	cert, pool := testCert(t, "allowed.test")
	mode := make(chan string, 1)
	front := tcpServer(t, func(c net.Conn) {
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		switch <-mode {
		case "silent":
			_, _ = io.Copy(io.Discard, c)
		case "hrr":
			if _, _, err := readFirstFlight(c); err == nil {
				_, _ = c.Write(append(serverHello(true), ccsRecord...))
			}
			_, _ = io.Copy(io.Discard, c)
		case "real":
			s := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert},
				CurvePreferences: []tls.CurveID{tls.CurveP256}, MinVersion: tls.VersionTLS13})
			if err := s.Handshake(); err != nil {
				return
			}
			b := make([]byte, 5)
			if _, err := io.ReadFull(s, b); err == nil {
				_, _ = s.Write(append([]byte("echo:"), b...))
			}
			_ = s.Close()
		}
	})
	h.dial.route(ap(addrAllowed, 443), front)

	connect := func() (net.Conn, *bufio.Reader) {
		c := mustDialProxy(t, h.addr)
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		_, _ = io.WriteString(c, "CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n")
		br := bufio.NewReader(c)
		if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		return c, br
	}
	drained := func(what string, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for h.p.Stats().ActiveTunnels != 0 {
			if time.Now().After(deadline) {
				t.Errorf("%s: a tunnel still held %v after the limits (2s idle, 2s handshake): %d active",
					what, within, h.p.Stats().ActiveTunnels)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	hello := tls13Hello("allowed.test", nil)

	// Legitimate control: a real HelloRetryRequest handshake, CONNECT and SOCKS5.
	real := func(c net.Conn) {
		t.Helper()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		tc := tls.Client(c, &tls.Config{ServerName: "allowed.test", RootCAs: pool,
			CurvePreferences: []tls.CurveID{tls.X25519, tls.CurveP256}})
		if _, err := tc.Write([]byte("hello")); err != nil {
			t.Fatalf("control: a real HelloRetryRequest handshake through the proxy failed: %v", err)
		}
		b := make([]byte, 10)
		if _, err := io.ReadFull(tc, b); err != nil || string(b) != "echo:hello" {
			t.Fatalf("control: real HRR flow: read %q, %v", b, err)
		}
		if !tc.ConnectionState().HelloRetryRequest {
			t.Fatalf("control: the handshake had no HelloRetryRequest")
		}
		_ = tc.Close()
	}
	mode <- "real"
	c, br := connect()
	real(&bufConn{Conn: c, r: br})
	mode <- "real"
	sc, err := socksDialer(t, h.addr).DialContext(context.Background(), "tcp", "allowed.test:443")
	if err != nil {
		t.Fatalf("SOCKS5 dial: %v", err)
	}
	real(sc)
	drained("after the real handshakes", 8*time.Second)

	// Stall 1: the server never answers; the client closes at once.
	mode <- "silent"
	c, _ = connect()
	_, _ = c.Write(hello)
	time.Sleep(200 * time.Millisecond)
	_ = c.Close()
	drained("a server that never answers the first hello", 8*time.Second)

	// Stall 2: a HelloRetryRequest, then a client that never sends the second hello.
	mode <- "hrr"
	c, br = connect()
	_, _ = c.Write(hello)
	_, _ = br.ReadByte()
	drained("a client that never sends its second hello", 8*time.Second)
	_ = c.Close()

	// Stall 3: a HelloRetryRequest, then a CCS and early data a record a
	// second, never the hello.
	mode <- "hrr"
	c, br = connect()
	_, _ = c.Write(hello)
	_, _ = br.ReadByte()
	stop := make(chan struct{})
	go func() {
		_, _ = c.Write(ccsRecord)
		for i := 0; i < 20; i++ {
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Millisecond):
			}
			if _, err := c.Write([]byte{0x17, 3, 3, 0, 1, 0}); err != nil {
				return
			}
		}
	}()
	drained("a client trickling early data instead of its second hello", 8*time.Second)
	close(stop)
	_ = c.Close()
}
