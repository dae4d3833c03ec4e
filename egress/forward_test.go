package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestHTTPForwardAllowed(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	httpUpstreamServer(t, h, addrAllowed)
	c := proxyClient(h.addr, nil)

	req, _ := http.NewRequest("POST", "http://allowed.test/path?q=1", strings.NewReader("request-body"))
	req.Header.Set("Connection", "X-Hop")
	req.Header.Set("X-Hop", "must-not-pass")
	req.Header.Set("Proxy-Connection", "keep-alive")
	req.Header.Set("X-End", "passes")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	for _, want := range []string{"host=allowed.test ", "method=POST", "uri=/path?q=1 ", "X-End", "body=request-body"} {
		if !strings.Contains(body, want) {
			t.Errorf("upstream saw %q, missing %q", body, want)
		}
	}
	for _, bad := range []string{"Proxy-Authorization", "Proxy-Connection", "X-Hop"} {
		if strings.Contains(body, bad) {
			t.Errorf("hop-by-hop or proxy header %s was forwarded: %q", bad, body)
		}
	}
	if resp.Header.Get("X-Upstream-Hop") != "" {
		t.Error("response header named in Connection was forwarded")
	}
	ds := h.sink.waitFor(t, 1)
	d := ds[0]
	if !d.Allowed || d.Proto != ProtoHTTP || d.Host != "allowed.test" || d.Port != 80 ||
		d.Rule != "allow:allowed.test" || d.Addr != addrAllowed {
		t.Errorf("decision %+v", d)
	}
	if got := h.dial.dials(); len(got) != 1 || got[0] != ap(addrAllowed, 80) {
		t.Errorf("dialled %v, want exactly the checked %s", got, ap(addrAllowed, 80))
	}
	st := h.p.Stats()
	if st.Allowed != 1 || st.Denied != 0 || st.BytesUp == 0 || st.BytesDown == 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestHTTPKeepAliveReusesUpstream(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test", "www.allowed.test"}}})
	httpUpstreamServer(t, h, addrAllowed)
	c := proxyClient(h.addr, nil)
	for _, u := range []string{"http://allowed.test/1", "http://allowed.test/2", "http://www.allowed.test/3"} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", u, resp.StatusCode, body)
		}
	}
	ds := h.sink.waitFor(t, 3)
	if len(ds) != 3 {
		t.Fatalf("want one decision per request, got %d", len(ds))
	}
	if n := len(h.dial.dials()); n != 2 {
		t.Errorf("want 2 upstream dials (reuse for the same target), got %d", n)
	}
}

func TestHTTPForwardingEdges(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test:*"}}})
	httpUpstreamServer(t, h, addrAllowed)
	// Port 81: answers without a length and closes, like an HTTP/1.0 server.
	h.dial.route(ap(addrAllowed, 81), tcpServer(t, func(c net.Conn) {
		_, _ = http.ReadRequest(bufio.NewReader(c))
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close")
	}))
	// Port 82: serves one request per connection but claims keep-alive,
	// so a reused upstream connection is found closed.
	h.dial.route(ap(addrAllowed, 82), tcpServer(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	}))

	t.Run("expect 100-continue", func(t *testing.T) {
		c := mustDialProxy(t, h.addr)
		io.WriteString(c, "POST http://allowed.test/x HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
		br := bufio.NewReader(c)
		line, err := br.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
			t.Fatalf("want 100 Continue before the body, got %q %v", line, err)
		}
		br.ReadString('\n')
		io.WriteString(c, "body")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, resp); !strings.Contains(body, "body=body") || strings.Contains(body, "Expect") {
			t.Errorf("upstream saw %q", body)
		}
	})
	t.Run("chunked request body", func(t *testing.T) {
		resp, body := rawRequest(t, h, "POST http://allowed.test/c HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
		if resp.StatusCode != 200 || !strings.Contains(body, "body=abcde") {
			t.Errorf("%d %q", resp.StatusCode, body)
		}
	})
	t.Run("close-delimited response", func(t *testing.T) {
		resp, body := rawRequest(t, h, "GET http://allowed.test:81/ HTTP/1.1\r\nHost: allowed.test:81\r\n\r\n")
		if resp.StatusCode != 200 || body != "until close" {
			t.Errorf("%d %q", resp.StatusCode, body)
		}
	})
	t.Run("stale keep-alive upstream is redialled", func(t *testing.T) {
		c := proxyClient(h.addr, nil)
		for i := range 3 {
			resp, err := c.Get("http://allowed.test:82/")
			if err != nil {
				t.Fatal(err)
			}
			if body := readAll(t, resp); resp.StatusCode != 200 || body != "ok" {
				t.Fatalf("request %d: %d %q", i, resp.StatusCode, body)
			}
		}
		n := 0
		for _, a := range h.dial.dials() {
			if a.Port() == 82 {
				n++
			}
		}
		if n != 3 {
			t.Errorf("%d dials to the one-shot server, want 3", n)
		}
	})
	t.Run("HEAD", func(t *testing.T) {
		c := proxyClient(h.addr, nil)
		for range 2 {
			resp, err := c.Head("http://allowed.test/h")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatal(resp.Status)
			}
		}
	})
}
