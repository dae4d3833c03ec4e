package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// connectTo opens a CONNECT tunnel to target through h's proxy and sends
// first as the client's first flight. It returns what the client reads
// back until the proxy or the upstream closes.
func connectTo(t *testing.T, h *harness, target string, first []byte) string {
	t.Helper()
	c := mustDialProxy(t, h.addr)
	io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT %s: %v %v", target, resp, err)
	}
	if _, err := c.Write(first); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	back, _ := io.ReadAll(br)
	return string(back)
}

// upstreamRecorder serves one connection at addr:port of h's dialer and
// reports the bytes it received.
func upstreamRecorder(t *testing.T, h *harness, port uint16, reply string) <-chan string {
	t.Helper()
	got := make(chan string, 1)
	h.dial.route(ap(addrAllowed, port), tcpServer(t, func(c net.Conn) {
		if reply != "" {
			io.WriteString(c, reply)
		}
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		b, _ := io.ReadAll(c)
		got <- string(b)
	}))
	return got
}

// TestPlainHTTPTunnelChecked: a tunnel to an allowed host's port 80 that
// carries plain HTTP would reach a shared front end (a CDN) with any Host
// header, past the check every request sent to the proxy itself gets. Each
// request in such a tunnel is checked: one naming another host is refused
// and never reaches the upstream, also behind an allowed one on the same
// connection, and request lines that lenient servers would read (leading
// empty lines, any case, runs of blanks, h2c's preface) are refused too.
func TestPlainHTTPTunnelChecked(t *testing.T) {
	for _, tc := range []struct{ first, want string }{
		{"GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n", "X-Agentbox-Deny: " + RuleHostMismatch},
		{"GET http://evil.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n", "X-Agentbox-Deny: " + RuleHostMismatch},
		{"\r\nPOST /x HTTP/1.1\r\nHost: evil.test\r\n\r\n", "X-Agentbox-Deny: " + RuleBadRequest},
		{"get  /   HTTP/1.0\r\nHost: evil.test\r\n\r\n", "X-Agentbox-Deny: " + RuleBadRequest},
		{"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "X-Agentbox-Deny: " + RuleBadRequest},
		{"PROPFIND\t/dav HTTP/1.1\r\nHost: evil.test\r\n\r\n", "X-Agentbox-Deny: " + RuleBadRequest},
	} {
		h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
		got := upstreamRecorder(t, h, 80, "")
		back := connectTo(t, h, "allowed.test:80", []byte(tc.first))
		if !strings.HasPrefix(back, "HTTP/1.1 4") && !strings.HasPrefix(back, "HTTP/1.1 5") || !strings.Contains(back, tc.want) {
			t.Errorf("%q: the client read %q, want a refusal with %s", tc.first, back, tc.want)
		}
		if b := <-got; b != "" {
			t.Errorf("%q: the upstream received %q", tc.first, b)
		}
	}

	// An allowed request goes through, and the one after it on the same
	// connection is checked as well.
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	requests := make(chan string, 4)
	h.dial.route(ap(addrAllowed, 80), tcpServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			requests <- req.Host
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	}))
	back := connectTo(t, h, "allowed.test:80", []byte("GET /a HTTP/1.1\r\nHost: allowed.test\r\n\r\n"+
		"GET /b HTTP/1.1\r\nHost: evil.test\r\n\r\n"))
	if !strings.HasPrefix(back, "HTTP/1.1 200 OK\r\n") || !strings.Contains(back, "ok") || !strings.Contains(back, "X-Agentbox-Deny: "+RuleHostMismatch) {
		t.Errorf("keep-alive: the client read %q, want the first answered and the second refused", back)
	}
	if len(requests) != 1 || <-requests != "allowed.test" {
		t.Errorf("the upstream did not get exactly the allowed request")
	}
}

// TestPlainHTTPInPiecesRefused: a request line sent in pieces, with pauses
// longer than the proxy waits for a first flight, goes out watched; the
// tunnel is refused before the piece that completes the line.
func TestPlainHTTPInPiecesRefused(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	got := upstreamRecorder(t, h, 80, "")
	c := mustDialProxy(t, h.addr)
	io.WriteString(c, "CONNECT allowed.test:80 HTTP/1.1\r\nHost: allowed.test:80\r\n\r\n")
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	for _, piece := range []string{"GET", " /x", " HTTP/1.1\r\nHost: evil.test\r\n\r\n"} {
		c.Write([]byte(piece))
		time.Sleep(3 * firstFlightQuiet)
	}
	if b := <-got; strings.Contains(b, "HTTP/") {
		t.Errorf("the upstream received a complete request line: %q", b)
	}
	ds := h.sink.waitFor(t, 2)
	if ds[1].Allowed || ds[1].Rule != RulePlainHTTPTunnel {
		t.Errorf("decisions %+v", ds)
	}
}

// TestNonHTTPTunnelsSpliced: what is not an HTTP request line goes through
// untouched: an SSH banner with a comment (a space, then no HTTP version),
// binary protocols that start with a length (PostgreSQL's SSLRequest and
// startup message, Kafka), Redis and memcached commands (text and binary,
// whose first byte has the top bit set like an SSLv2 header), git's pkt-line.
func TestNonHTTPTunnelsSpliced(t *testing.T) {
	for _, first := range []string{
		"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13.5\r\n",
		"\x00\x00\x00\x08\x04\xd2\x16\x2f",
		"\x00\x00\x00\x29\x00\x03\x00\x00user\x00postgres\x00database\x00http\x00\x00",
		"\x00\x00\x00\x14\x00\x12\x00\x03\x00\x00\x00\x01\x00\x0aclient-1 x",
		"PING\n",
		"*1\r\n$4\r\nPING\r\n",
		"get key\r\n",
		"0032git-upload-pack /p.git\x00host=x\x00",
		"\x80\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00key",
	} {
		h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test:2222"}}})
		got := upstreamRecorder(t, h, 2222, "SERVER-HELLO\r\n")
		back := connectTo(t, h, "allowed.test:2222", []byte(first))
		if back != "SERVER-HELLO\r\n" {
			t.Errorf("%q: the client read %q", first, back)
		}
		if b := <-got; b != first {
			t.Errorf("%q: the upstream received %q", first, b)
		}
	}
}

// TestTLSWithoutSNIRefused: a ClientHello that names no server, to a
// target named by its host name, would let the front end pick the host
// from the encrypted request instead. Clients send SNI for every name. The
// SSLv2-compatible format cannot carry one and is refused the same way.
func TestTLSWithoutSNIRefused(t *testing.T) {
	for _, c := range []struct {
		name, reason string
		hello        []byte
	}{
		{"TLS record", "names no server name", buildHello(nil)},
		{"SSLv2 format", "SSLv2-compatible format", sslv2Hello(0x0303)},
		{"SSLv2 format, SSL 2.0", "SSLv2-compatible format", sslv2Hello(0x0002)},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
			got := upstreamRecorder(t, h, 443, "")
			connectTo(t, h, "allowed.test:443", c.hello)
			if b := <-got; b != "" {
				t.Errorf("the upstream received %d bytes of a hello without SNI", len(b))
			}
			ds := h.sink.waitFor(t, 2)
			if ds[1].Allowed || ds[1].Rule != RuleSNIMismatch || !strings.Contains(ds[1].Reason, c.reason) {
				t.Errorf("decisions %+v", ds)
			}
		})
	}
}

// TestTLSWithoutSNIToAddressSpliced: to a target named by its address, no
// hello names a server, so one without SNI passes, in either format.
func TestTLSWithoutSNIToAddressSpliced(t *testing.T) {
	for _, hello := range [][]byte{buildHello(nil), sslv2Hello(0x0303)} {
		h := newHarness(t, Config{Policy: Policy{Allowed: []string{addrAllowed.String()}}})
		got := upstreamRecorder(t, h, 443, "")
		connectTo(t, h, addrAllowed.String()+":443", hello)
		if b := <-got; b != string(hello) {
			t.Errorf("%x: the upstream received %x", hello[:3], b)
		}
	}
}

// TestAmbiguousHTTPTunnelRefused: bytes that only a lenient HTTP server
// reads as a request (the red-team's leading space, NUL line, HTTP/0.9
// line and vertical tabs, and their kin) would carry a Host header past
// the check in a tunnel that the proxy then splices. They are refused, in
// one flight before any byte goes upstream, in pieces before the piece
// that completes the request line.
func TestAmbiguousHTTPTunnelRefused(t *testing.T) {
	const evil = "Host: evil.test\r\n\r\n"
	cases := []struct {
		name   string
		pieces []string // sent with pauses longer than the first flight waits
		sent   string   // what the upstream may receive
	}{
		{"leading space", []string{" GET /lead HTTP/1.1\r\n" + evil}, ""},
		{"leading tab", []string{"\tGET / HTTP/1.1\r\n" + evil}, ""},
		{"NUL line, then a request", []string{"\x00\r\nGET /g HTTP/1.1\r\n" + evil}, ""},
		{"NUL line, then a request in pieces", []string{"\x00\r\n", "GET /g HTTP/1.1\r\n" + evil}, "\x00\r\n"},
		{"HTTP/0.9, then HTTP/1.1", []string{"GET /\r\nGET /x HTTP/1.1\r\n" + evil}, ""},
		{"HTTP/0.9 with an absolute URI", []string{"GET http://evil.test/\r\n"}, ""},
		{"HTTP/0.9 with a trailing blank", []string{"GET / \r\n"}, ""},
		{"vertical tabs", []string{"GET\x0b/vt\x0bHTTP/1.1\r\n" + evil}, ""},
		{"form feed", []string{"GET /ff\x0cHTTP/1.1\r\n" + evil}, ""},
		{"NUL separator", []string{"GET\x00/n HTTP/1.1\r\n" + evil}, ""},
		{"odd separator in pieces", []string{"GET\x0b/p", "\x0bHTTP/1.1\r\n" + evil}, "GET\x0b/p"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
			got := upstreamRecorder(t, h, 80, "")
			conn := mustDialProxy(t, h.addr)
			io.WriteString(conn, "CONNECT allowed.test:80 HTTP/1.1\r\nHost: allowed.test:80\r\n\r\n")
			br := bufio.NewReader(conn)
			if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
				t.Fatalf("CONNECT: %v %v", resp, err)
			}
			for i, piece := range c.pieces {
				if i > 0 {
					time.Sleep(3 * firstFlightQuiet)
				}
				_, _ = conn.Write([]byte(piece))
			}
			_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
			back, _ := io.ReadAll(br)
			if len(back) != 0 {
				t.Errorf("the client read %q", back)
			}
			if b := <-got; b != c.sent {
				t.Errorf("the upstream received %q, want %q", b, c.sent)
			}
			ds := h.sink.waitFor(t, 2)
			if ds[1].Allowed || ds[1].Rule != RulePlainHTTPTunnel || !strings.Contains(ds[1].Reason, "lenient") {
				t.Errorf("decisions %+v", ds)
			}
		})
	}
}
