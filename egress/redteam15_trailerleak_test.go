package egress

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A request's trailer is promised to be checked for placeholders of
// credentials not bound to the request's host (Credential: "request line,
// headers, Basic credentials, body, trailers"). Each case sends one in a
// chunked request's trailer, as a field's value and as a field's name, on
// every path: the plain-HTTP proxy (forward), a plain-HTTP tunnel and an
// intercepted tunnel; the control sends the same request with a harmless
// trailer.

// TestRedteam15TrailerPlaceholder: a foreign placeholder as a trailer
// field's value and name, on every path.
//
// Fixed: findLeakIn now matches trailer names too, whatever their case,
// and forward checks req.Trailer once the body is read, failing the
// request before its end and trailer are sent.
func TestRedteam15TrailerPlaceholder(t *testing.T) {
	e := newCredEnv(t)
	api, other := e.ph["API_KEY"], e.ph["OTHER_KEY"]
	type path struct {
		name, host string
		uri        string
		open       func() (net.Conn, *bufio.Reader)
		seen       func() []seenRequest
		leaked     string // a placeholder not bound to the host
	}
	plainConn := func() (net.Conn, *bufio.Reader) {
		c := mustDialProxy(t, e.h.addr)
		return c, bufio.NewReader(c)
	}
	paths := []path{
		{"forward proxy to third.test", "third.test", "http://third.test/up", plainConn,
			func() []seenRequest { return e.up["third.test"].all() }, api},
		{"plain tunnel to third.test:80", "third.test", "/up", func() (net.Conn, *bufio.Reader) {
			c := mustDialProxy(t, e.h.addr)
			fmt.Fprintf(c, "CONNECT third.test:80 HTTP/1.1\r\nHost: third.test:80\r\n\r\n")
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("CONNECT: %v %v", resp, err)
			}
			return c, br
		}, func() []seenRequest { return e.up["third.test"].all() }, api},
		{"intercepted tunnel to api.test", "api.test", "/up", func() (net.Conn, *bufio.Reader) {
			c, br := e.interceptedConn(t, "api.test:443")
			return c, br
		}, func() []seenRequest { return e.up["api.test"].all() }, other},
	}
	send := func(p path, trailerLine string) (int, []seenRequest) {
		before := len(p.seen())
		c, br := p.open()
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n5\r\nhello\r\n0\r\n%s\r\n\r\n",
			p.uri, p.host, trailerLine)
		resp, err := http.ReadResponse(br, &http.Request{Method: "POST"})
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		resp.Body.Close()
		time.Sleep(50 * time.Millisecond)
		return resp.StatusCode, p.seen()[before:]
	}
	var failures []string
	for _, p := range paths {
		// Control: a harmless trailer goes through.
		if st, seen := send(p, "X-T: 1"); st != 200 || len(seen) != 1 || seen[0].Trailer.Get("X-T") != "1" {
			t.Fatalf("%s: control: status %d, upstream saw %+v", p.name, st, seen)
		}
		for _, tc := range []struct{ where, line string }{
			{"value", "X-T: " + p.leaked},
			{"name", p.leaked + ": 1"},
		} {
			st, seen := send(p, tc.line)
			for _, s := range seen {
				for k, vs := range s.Trailer {
					if strings.EqualFold(k, p.leaked) || strings.Contains(strings.Join(vs, ","), p.leaked) {
						failures = append(failures, fmt.Sprintf("%s, trailer %s (status %d)", p.name, tc.where, st))
					}
				}
			}
		}
	}
	e.assertNoValue(t)
	if len(failures) > 0 {
		t.Fatalf("a placeholder in a request's trailer reached a host its credential is not bound to: %s", strings.Join(failures, "; "))
	}
}
