package egress

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// echoHandler answers with what it received, so tests can see exactly what
// the proxy forwarded.
func echoHandler(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var keys []string
	for k := range r.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w.Header().Set("X-Upstream-Hop", "secret")
	w.Header().Set("Connection", "X-Upstream-Hop")
	fmt.Fprintf(w, "host=%s method=%s uri=%s headers=%s body=%s", r.Host, r.Method, r.RequestURI, strings.Join(keys, ","), body)
}

// httpUpstreamServer starts a plain HTTP upstream on loopback and routes
// checked addresses' port 80 to it.
func httpUpstreamServer(t *testing.T, h *harness, addrs ...netip.Addr) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(echoHandler))
	t.Cleanup(srv.Close)
	for _, a := range addrs {
		h.dial.route(ap(a, 80), srv.Listener.Addr().String())
	}
	return srv
}

// tlsUpstreamServer starts an HTTPS upstream for allowed.test on loopback,
// routes addr:443 to it and returns the pool that trusts it.
func tlsUpstreamServer(t *testing.T, h *harness, addr netip.Addr) *x509.CertPool {
	t.Helper()
	cert, pool := testCert(t, "allowed.test", "www.allowed.test")
	srv := httptest.NewUnstartedServer(http.HandlerFunc(echoHandler))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	h.dial.route(ap(addr, 443), srv.Listener.Addr().String())
	return pool
}

func proxyClient(proxyAddr string, pool *x509.CertPool) *http.Client {
	pu := &url.URL{Scheme: "http", Host: proxyAddr, User: url.UserPassword("agent", "proxy-secret")}
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			Proxy:           http.ProxyURL(pu),
			TLSClientConfig: &tls.Config{RootCAs: pool},
		},
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConnectTLSAllowed(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	pool := tlsUpstreamServer(t, h, addrAllowed)
	c := proxyClient(h.addr, pool)
	big := strings.Repeat("0123456789", 100_000)
	resp, err := c.Post("https://allowed.test/upload", "text/plain", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(body, "host=allowed.test") || !strings.HasSuffix(body, "body="+big) {
		t.Fatalf("status %d, body %.200q", resp.StatusCode, body)
	}
	ds := h.sink.waitFor(t, 1)
	if d := ds[0]; !d.Allowed || d.Proto != ProtoConnect || d.Port != 443 || d.Addr != addrAllowed || d.Rule != "allow:allowed.test" {
		t.Errorf("decision %+v", d)
	}
	if got := h.dial.dials(); len(got) != 1 || got[0] != ap(addrAllowed, 443) {
		t.Errorf("dialled %v", got)
	}
	// Counters are updated per copied chunk; they are exact once the
	// tunnel has closed.
	c.CloseIdleConnections()
	st := waitStats(t, h.p, func(s Stats) bool { return s.ActiveTunnels == 0 })
	if st.BytesUp < uint64(len(big)) || st.BytesDown < uint64(len(big)) {
		t.Errorf("byte counters %+v, want ≥ %d both ways", st, len(big))
	}
}

// rawRequest sends a raw request to the proxy and returns the response.
func rawRequest(t *testing.T, h *harness, req string) (*http.Response, string) {
	t.Helper()
	c := mustDialProxy(t, h.addr)
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading response to %q: %v", req, err)
	}
	return resp, readAll(t, resp)
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		req    string
		status int
		rule   string
		lookup bool // whether a DNS lookup may happen
		addr   string
	}{
		{"denied name CONNECT", Policy{Allowed: []string{"*.test"}, Denied: []string{"evil.test"}},
			"CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n", 403, "deny:evil.test", false, ""},
		{"denied name plain HTTP", Policy{Allowed: []string{"*.test"}, Denied: []string{"evil.test"}},
			"GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n", 403, "deny:evil.test", false, ""},
		{"unlisted name", Policy{Allowed: []string{"allowed.test"}},
			"CONNECT secret-data.exfil.test:443 HTTP/1.1\r\n\r\n", 403, RuleDefaultDeny, false, ""},
		{"allowed name resolving to loopback", Policy{Allowed: []string{"rebind.test"}},
			"CONNECT rebind.test:443 HTTP/1.1\r\n\r\n", 403, "guard:loopback", true, "127.0.0.1"},
		{"allowed name resolving to loopback, plain HTTP", Policy{Allowed: []string{"rebind.test"}},
			"GET http://rebind.test/ HTTP/1.1\r\nHost: rebind.test\r\n\r\n", 403, "guard:loopback", true, "127.0.0.1"},
		{"loopback literal even when listed", Policy{Allowed: []string{"127.0.0.1"}},
			"CONNECT 127.0.0.1:443 HTTP/1.1\r\n\r\n", 403, "guard:loopback", false, "127.0.0.1"},
		{"metadata literal", Policy{Allowed: []string{"169.254.169.254"}},
			"GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n", 403, "guard:metadata", false, "169.254.169.254"},
		{"mapped IPv6 loopback literal", Policy{Allowed: []string{"::ffff:127.0.0.1"}},
			"CONNECT [::ffff:127.0.0.1]:443 HTTP/1.1\r\n\r\n", 403, "guard:loopback", false, "::ffff:127.0.0.1"},
		{"unlisted IP literal", Policy{Allowed: []string{"*"}},
			"CONNECT 192.0.2.10:443 HTTP/1.1\r\n\r\n", 403, RuleDefaultDeny, false, "192.0.2.10"},
		{"decimal integer host", Policy{Allowed: []string{"*"}},
			"CONNECT 2130706433:443 HTTP/1.1\r\n\r\n", 403, RuleInvalidTarget, false, "127.0.0.1"},
		{"hex host", Policy{Allowed: []string{"*"}},
			"GET http://0x7f.1/ HTTP/1.1\r\nHost: 0x7f.1\r\n\r\n", 403, RuleInvalidTarget, false, "127.0.0.1"},
		{"short host", Policy{Allowed: []string{"*"}},
			"CONNECT 127.1:80 HTTP/1.1\r\n\r\n", 403, RuleInvalidTarget, false, "127.0.0.1"},
		{"Host header names another host", Policy{Allowed: []string{"allowed.test", "evil.test"}},
			"GET http://allowed.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n", 403, RuleHostMismatch, false, ""},
		{"Host header names another port", Policy{Allowed: []string{"allowed.test:*"}},
			"GET http://allowed.test/ HTTP/1.1\r\nHost: allowed.test:8080\r\n\r\n", 403, RuleHostMismatch, false, ""},
		{"origin-form request", Policy{Allowed: []string{"allowed.test"}},
			"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 400, RuleBadRequest, false, ""},
		{"https absolute URI", Policy{Allowed: []string{"allowed.test"}},
			"GET https://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 400, RuleBadRequest, false, ""},
		{"garbage", Policy{Allowed: []string{"allowed.test"}},
			"HELLO\r\n\r\n", 400, RuleBadRequest, false, ""},
		{"port outside the pattern", Policy{Allowed: []string{"allowed.test"}},
			"CONNECT allowed.test:22 HTTP/1.1\r\n\r\n", 403, RuleDefaultDeny, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{Policy: tt.policy})
			resp, body := rawRequest(t, h, tt.req)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if got := resp.Header.Get("X-Agentbox-Deny"); got != tt.rule {
				t.Errorf("X-Agentbox-Deny = %q, want %q", got, tt.rule)
			}
			if !strings.Contains(body, tt.rule) || !strings.HasPrefix(body, "agentbox egress: ") || strings.Count(body, "\n") != 1 {
				t.Errorf("body %q does not explain the refusal in one line", body)
			}
			ds := h.sink.waitFor(t, 1)
			d := ds[0]
			if d.Allowed || d.Rule != tt.rule || d.Reason == "" {
				t.Errorf("decision %+v", d)
			}
			if strings.HasPrefix(tt.req, "CONNECT") && (d.Port != 443 && d.Port != 80 && d.Port != 22 || d.Proto != ProtoConnect) {
				t.Errorf("CONNECT decision names port %d, proto %s", d.Port, d.Proto)
			}
			if tt.addr != "" && d.Addr.String() != tt.addr {
				t.Errorf("decision address %s, want %s", d.Addr, tt.addr)
			}
			if n := len(h.dial.dials()); n != 0 {
				t.Errorf("refused request dialled %v", h.dial.dials())
			}
			if !tt.lookup && len(h.res.looked()) != 0 {
				t.Errorf("refused request was resolved: %v", h.res.looked())
			}
			if st := h.p.Stats(); st.Denied != 1 || st.Allowed != 0 || st.ActiveTunnels != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestRebindingUsesCheckedAddress(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"flip.test", "mixed.test"}}})
	// flip.test answers a public address first and loopback afterwards,
	// like a rebinding DNS server; mixed.test answers both at once.
	h.res.seq["flip.test"] = [][]netip.Addr{{addrAllowed}, {netip.MustParseAddr("127.0.0.1")}}
	h.res.answers["mixed.test"] = []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("10.0.0.1"), addrAllowed}
	httpUpstreamServer(t, h, addrAllowed)
	c := proxyClient(h.addr, nil)

	resp, err := c.Get("http://flip.test/")
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("first request: %d %s", resp.StatusCode, body)
	}
	if got := h.res.looked(); len(got) != 1 {
		t.Errorf("want exactly one lookup per connection decision, got %v", got)
	}
	// The next connection sees the rebound answer and is refused.
	resp, body := rawRequest(t, h, "CONNECT flip.test:443 HTTP/1.1\r\n\r\n")
	if resp.StatusCode != 403 || resp.Header.Get("X-Agentbox-Deny") != "guard:loopback" {
		t.Fatalf("rebound name: %d %s", resp.StatusCode, body)
	}

	resp, err = c.Get("http://mixed.test/")
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("mixed: %d %s", resp.StatusCode, body)
	}
	ds := h.sink.waitFor(t, 3)
	last := ds[2]
	if !last.Allowed || last.Addr != addrAllowed || !strings.Contains(last.Reason, "127.0.0.1 (guard:loopback)") {
		t.Errorf("mixed decision %+v", last)
	}
	for _, a := range h.dial.dials() {
		if a.Addr() != addrAllowed {
			t.Errorf("dialled a refused address %s", a)
		}
	}
}

func TestIPLiteralAllowedExplicitly(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"192.0.2.10", "[2001:db8::10]:80"}}})
	httpUpstreamServer(t, h, addrAllowed, addrAllowed6)
	c := proxyClient(h.addr, nil)
	for _, u := range []string{"http://192.0.2.10/", "http://[2001:db8::10]/"} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", u, resp.StatusCode, body)
		}
	}
	if len(h.res.looked()) != 0 {
		t.Errorf("IP literals were resolved: %v", h.res.looked())
	}
	want := []netip.AddrPort{ap(addrAllowed, 80), ap(addrAllowed6, 80)}
	if got := h.dial.dials(); !slices.Equal(got, want) {
		t.Errorf("dialled %v, want %v", got, want)
	}
}

func TestSNIFrontingRefused(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test", "evil.test"}}})
	received := make(chan int, 4)
	upstream := tcpServer(t, func(c net.Conn) {
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, _ := io.Copy(io.Discard, c)
		received <- int(n)
	})
	h.dial.route(ap(addrAllowed, 443), upstream)

	c := mustDialProxy(t, h.addr)
	io.WriteString(c, "CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	tc := tls.Client(&bufConn{Conn: c, r: br}, &tls.Config{ServerName: "evil.test", InsecureSkipVerify: true})
	err = tc.Handshake()
	if err == nil || !strings.Contains(err.Error(), "access denied") {
		t.Fatalf("fronted handshake: %v, want an access_denied alert", err)
	}
	if n := <-received; n != 0 {
		t.Errorf("upstream received %d bytes of a fronted hello", n)
	}
	ds := h.sink.waitFor(t, 2)
	if !ds[0].Allowed || ds[1].Allowed || ds[1].Rule != RuleSNIMismatch || !strings.Contains(ds[1].Reason, "evil.test") {
		t.Errorf("decisions %+v", ds)
	}
}

func TestTLSPreludeRefused(t *testing.T) {
	// A warning alert before the ClientHello must not carry a fronted SNI
	// past the check.
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	received := make(chan int, 1)
	h.dial.route(ap(addrAllowed, 443), tcpServer(t, func(c net.Conn) {
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, _ := io.Copy(io.Discard, c)
		received <- int(n)
	}))
	c := mustDialProxy(t, h.addr)
	io.WriteString(c, "CONNECT allowed.test:443 HTTP/1.1\r\n\r\n")
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	c.Write(append([]byte{0x15, 3, 3, 0, 2, 1, 90}, buildHello(sniExt("evil.test"))...))
	if n := <-received; n != 0 {
		t.Errorf("upstream received %d bytes", n)
	}
	ds := h.sink.waitFor(t, 2)
	if ds[1].Allowed || ds[1].Rule != RuleBadTLS {
		t.Errorf("decisions %+v", ds)
	}
}

func TestSNICaseAndTrailingDotAccepted(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	got := make(chan []byte, 1)
	upstream := tcpServer(t, func(c net.Conn) {
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		b, _ := io.ReadAll(c)
		got <- b
	})
	h.dial.route(ap(addrAllowed, 443), upstream)
	hello := buildHello(sniExt("ALLOWED.Test."))
	c := mustDialProxy(t, h.addr)
	io.WriteString(c, "CONNECT allowed.test:443 HTTP/1.1\r\n\r\n")
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	c.Write(hello)
	c.(*net.TCPConn).CloseWrite()
	if b := <-got; string(b) != string(hello) {
		t.Errorf("upstream got %d bytes, want the %d-byte hello unchanged", len(b), len(hello))
	}
}

// bufConn reads through a bufio.Reader that may hold bytes already.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(b []byte) (int, error) { return c.r.Read(b) }

func (c *bufConn) CloseWrite() error { return c.Conn.(*net.TCPConn).CloseWrite() }

// waitStats polls the proxy's counters until ok holds or two seconds pass.
func waitStats(t *testing.T, p *Proxy, ok func(Stats) bool) Stats {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		st := p.Stats()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("stats never reached the expected state: %+v", st)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
