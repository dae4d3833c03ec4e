package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"testing"
	"time"
)

// prefixWriteConn writes pre in front of the first Write, in one segment.
type prefixWriteConn struct {
	net.Conn
	pre []byte
}

func (c *prefixWriteConn) Write(b []byte) (int, error) {
	if c.pre != nil {
		buf := append(append([]byte{}, c.pre...), b...)
		c.pre = nil
		if _, err := c.Conn.Write(buf); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// TestRedteam27AlertVersionFronting attacks the "TLS record that is not a
// handshake before the ClientHello" refusal. readFirstFlight refuses an
// alert, CCS, application-data or heartbeat record only when the byte
// after its type is 3 (the record version's major); with any other byte it
// calls the flight "not TLS", the request-line check calls it "not HTTP"
// (a control byte then '(' is no request line), and the tunnel is spliced
// unchecked. Go's crypto/tls server (Caddy, Traefik, any Go front end)
// checks no record version before the version is negotiated (only that it
// is below 0x1000, conn.go readRecordOrCCS), and drops a warning-level
// alert on the floor before the ClientHello (retryReadRecord). So the
// first flight 15 00 00 00 02 01 28 (a warning alert, version 0.0) then a
// ClientHello naming evil.test makes a shared Go front end at the allowed
// host's address serve evil.test: the domain fronting the SNI check
// exists to stop. The same alert with version 3.1 is refused (control),
// and so is the fronted hello alone.
//
// Severity: medium (fronting past the SNI check to a host the policy
// denies; needs a front end built on Go's crypto/tls serving both names,
// a common set-up for Caddy/Traefik multi-tenant hosts).
// Fix: in readFirstFlight, refuse a first byte of 0x14/0x15/0x17/0x18
// whatever the version bytes say (no protocol that is not TLS needs to
// start with one into a tunnel on a TLS port), or at least when the
// version is below 0x1000 as Go reads it; likewise a 0x16 record is
// already refused for a non-3 major.
// Fixed: readFirstFlight refuses a first record of type CCS, alert,
// application data or heartbeat once its 5-byte header is read, whatever
// its version and length (readStrayRecord); only a flight that ends
// before a whole header is passed on as not TLS.
func TestRedteam27AlertVersionFronting(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	cert, pool := testCert(t, "allowed.test", "evil.test")
	served := make(chan string, 8)
	front := tcpServer(t, func(c net.Conn) {
		_ = c.SetDeadline(time.Now().Add(3 * time.Second))
		s := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}})
		if err := s.Handshake(); err != nil {
			served <- "error: " + err.Error()
			return
		}
		served <- s.ConnectionState().ServerName
		_, _ = s.Write([]byte("hello from " + s.ConnectionState().ServerName))
	})
	h.dial.route(ap(addrAllowed, 443), front)

	try := func(pre []byte, sni string) (upstream string, handshake error) {
		c := mustDialProxy(t, h.addr)
		_, _ = c.Write([]byte("CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n"))
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		tc := tls.Client(&prefixWriteConn{Conn: c, pre: pre}, &tls.Config{ServerName: sni, RootCAs: pool})
		herr := tc.Handshake()
		select {
		case s := <-served:
			upstream = s
		case <-time.After(2 * time.Second):
			upstream = "(nothing reached the upstream)"
		}
		_ = tc.Close()
		return upstream, herr
	}

	// Controls: the allowed name works; a fronted name is refused; a
	// warning alert with a 3.x version before the hello is refused.
	if up, err := try(nil, "allowed.test"); err != nil || up != "allowed.test" {
		t.Fatalf("control: allowed SNI: handshake %v, upstream %q", err, up)
	}
	if up, err := try(nil, "evil.test"); err == nil || up == "evil.test" {
		t.Fatalf("control: fronted SNI was not refused: handshake %v, upstream %q", err, up)
	}
	if up, err := try([]byte{0x15, 0x03, 0x01, 0x00, 0x02, 0x01, 0x28}, "evil.test"); err == nil || up == "evil.test" {
		t.Fatalf("control: alert 3.1 + fronted SNI was not refused: handshake %v, upstream %q", err, up)
	}

	// Attack: the same warning alert, record version 0.0.
	up, err := try([]byte{0x15, 0x00, 0x00, 0x00, 0x02, 0x01, 0x28}, "evil.test")
	if err == nil || up == "evil.test" {
		t.Errorf("ESCAPE: a warning alert with record version 0.0 before a ClientHello naming evil.test "+
			"passed the tunnel to allowed.test: client handshake error %v, the front end served SNI %q", err, up)
	}

	// The same through a SOCKS5 tunnel.
	sc, serr := socksDialer(t, h.addr).DialContext(context.Background(), "tcp", "allowed.test:443")
	if serr != nil {
		t.Fatalf("SOCKS5 dial: %v", serr)
	}
	_ = sc.SetDeadline(time.Now().Add(5 * time.Second))
	tc := tls.Client(&prefixWriteConn{Conn: sc, pre: []byte{0x15, 0x00, 0x00, 0x00, 0x02, 0x01, 0x28}},
		&tls.Config{ServerName: "evil.test", RootCAs: pool})
	herr := tc.Handshake()
	select {
	case up = <-served:
	case <-time.After(2 * time.Second):
		up = "(nothing reached the upstream)"
	}
	_ = tc.Close()
	if herr == nil || up == "evil.test" {
		t.Errorf("ESCAPE (SOCKS5): the same alert-prefixed hello naming evil.test passed: handshake error %v, "+
			"the front end served SNI %q", herr, up)
	}
}
