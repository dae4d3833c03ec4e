package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/vault"
)

func TestInjectIntoBoundHost(t *testing.T) {
	for _, scheme := range []string{"http", "socks5"} {
		t.Run(scheme, func(t *testing.T) {
			e := newCredEnv(t)
			resp, body := do(t, e.client(scheme), "GET", "https://api.test/v1/messages?x=1",
				map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"], "X-Other": "kept"}, nil)
			if resp.StatusCode != 200 || body != "ok api.test" {
				t.Fatalf("response %d %q", resp.StatusCode, body)
			}
			reqs := e.up["api.test"].all()
			if len(reqs) != 1 {
				t.Fatalf("upstream saw %d requests", len(reqs))
			}
			r := reqs[0]
			if got := r.Header.Get("Authorization"); got != "Bearer "+apiValue {
				t.Errorf("upstream Authorization %q, want the real value", got)
			}
			if r.Header.Get("X-Other") != "kept" || r.URI != "/v1/messages?x=1" || r.Host != "api.test" {
				t.Errorf("upstream request changed: %+v", r)
			}
			ds := e.waitRule(t, RuleCredentialUse, 1)
			d := ds[0]
			if !d.Allowed || d.Credential != "API_KEY" || d.Proto != ProtoHTTPS || d.Host != "api.test" || d.Port != 443 || d.Addr != addrAPI {
				t.Errorf("injection decision %+v", d)
			}
			if !strings.Contains(d.Reason, "Authorization") {
				t.Errorf("reason %q does not name the header", d.Reason)
			}
			// The client saw the proxy's certificate for api.test.
			if resp.TLS == nil || len(resp.TLS.PeerCertificates) == 0 ||
				resp.TLS.PeerCertificates[0].Issuer.CommonName != e.h.p.creds.ca.cert.Subject.CommonName {
				t.Errorf("client did not see the run CA's leaf: %+v", resp.TLS)
			}
			if resp.TLS.NegotiatedProtocol != "" && resp.TLS.NegotiatedProtocol != "http/1.1" {
				t.Errorf("ALPN %q", resp.TLS.NegotiatedProtocol)
			}
			e.assertNoValue(t, body, fmt.Sprint(resp.Header))
		})
	}
}

func TestPlaceholderToOtherBoundHostBlocked(t *testing.T) {
	cases := []struct {
		name   string
		method string
		path   string
		hdr    func(ph string) map[string]string
		body   func(ph string) string
	}{
		{"header", "GET", "/", func(ph string) map[string]string { return map[string]string{"Authorization": "Bearer " + ph} }, nil},
		{"other header", "GET", "/", func(ph string) map[string]string { return map[string]string{"X-Api-Key": ph} }, nil},
		{"basic", "GET", "/", func(ph string) map[string]string {
			return map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+ph))}
		}, nil},
		{"query", "GET", "/search?key=", nil, nil},
		{"body", "POST", "/", nil, func(ph string) string { return `{"token":"` + ph + `"}` }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newCredEnv(t)
			ph := e.ph["API_KEY"] // bound to api.test, sent to other.test
			path := tc.path
			if strings.HasSuffix(path, "=") {
				path += ph
			}
			var hdr map[string]string
			if tc.hdr != nil {
				hdr = tc.hdr(ph)
			}
			var body io.Reader
			if tc.body != nil {
				body = strings.NewReader(tc.body(ph))
			}
			resp, text := do(t, e.client("http"), tc.method, "https://other.test"+path, hdr, body)
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Agentbox-Deny") != RuleCredentialLeak {
				t.Fatalf("response %d %v %q", resp.StatusCode, resp.Header, text)
			}
			if n := len(e.up["other.test"].all()); n != 0 {
				t.Fatalf("other.test received %d requests", n)
			}
			d := e.waitRule(t, RuleCredentialLeak, 1)[0]
			if d.Allowed || d.Credential != "API_KEY" || d.Host != "other.test" || d.Proto != ProtoHTTPS {
				t.Errorf("leak decision %+v", d)
			}
			if len(e.decisionsWith(RuleCredentialUse)) != 0 || e.fetches.Load() != 0 {
				t.Errorf("a value was fetched or injected")
			}
			e.assertNoValue(t, text)
		})
	}
}

func TestUnboundHostNotIntercepted(t *testing.T) {
	e := newCredEnv(t)
	// The client trusts only the test root: the tunnel must carry the
	// upstream's own certificate end to end.
	c := e.client("http")
	c.Transport.(*http.Transport).TLSClientConfig.RootCAs = e.root.pool
	for _, ph := range []string{e.ph["API_KEY"], e.ph["OTHER_KEY"]} {
		resp, body := do(t, c, "POST", "https://third.test/x?k="+ph,
			map[string]string{"Authorization": "Bearer " + ph}, strings.NewReader(ph))
		if resp.StatusCode != 200 || body != "ok third.test" {
			t.Fatalf("response %d %q", resp.StatusCode, body)
		}
		if iss := resp.TLS.PeerCertificates[0].Issuer.CommonName; iss != "test root" {
			t.Fatalf("certificate issued by %q: the tunnel was intercepted", iss)
		}
	}
	for i, r := range e.up["third.test"].all() {
		ph := []string{e.ph["API_KEY"], e.ph["OTHER_KEY"]}[i]
		if r.Header.Get("Authorization") != "Bearer "+ph || r.Body != ph {
			t.Errorf("bytes of a non-intercepted tunnel changed: %+v", r)
		}
	}
	if n := len(e.decisionsWith(RuleCredentialLeak)) + len(e.decisionsWith(RuleCredentialUse)); n != 0 {
		t.Errorf("%d credential decisions about a tunnel the proxy cannot see into", n)
	}
}

func TestPlainHTTPNeverInjected(t *testing.T) {
	e := newCredEnv(t)
	c := e.client("http")
	// Without a placeholder plain HTTP to the bound host works.
	resp, body := do(t, c, "GET", "http://api.test/ok", nil, nil)
	if resp.StatusCode != 200 || body != "ok api.test" {
		t.Fatalf("plain request: %d %q", resp.StatusCode, body)
	}
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		path string
		body io.Reader
	}{
		{"header to the bound host", map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"]}, "/", nil},
		{"basic", map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("u:"+e.ph["OTHER_KEY"]))}, "/", nil},
		{"query", nil, "/?token=" + e.ph["API_KEY"], nil},
		// A body of known length is checked whole before anything leaves.
		{"body", nil, "/", strings.NewReader("data=" + e.ph["OTHER_KEY"])},
		// A streamed body: the placeholder straddles reads.
		{"chunked body", nil, "/", &slowReader{parts: []string{"data=" + e.ph["API_KEY"][:20], e.ph["API_KEY"][20:], "&more"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(e.up["api.test"].all())
			resp, text := do(t, c, "POST", "http://api.test"+tc.path, tc.hdr, tc.body)
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Agentbox-Deny") != RuleCredentialLeak {
				t.Fatalf("response %d %q", resp.StatusCode, text)
			}
			seen := e.up["api.test"].all()[before:]
			if tc.name != "chunked body" && len(seen) != 0 {
				t.Fatalf("the upstream received the request: %+v", seen)
			}
			for _, r := range seen {
				if strings.Contains(r.Body, e.ph["API_KEY"]) || strings.Contains(r.URI, e.ph["API_KEY"]) {
					t.Fatalf("the placeholder reached the upstream: %+v", r)
				}
			}
		})
	}
	for _, d := range e.decisionsWith(RuleCredentialLeak) {
		if d.Proto != ProtoHTTP || d.Host != "api.test" || d.Credential == "" {
			t.Errorf("leak decision %+v", d)
		}
	}
	if len(e.decisionsWith(RuleCredentialUse)) != 0 || e.fetches.Load() != 0 {
		t.Error("a value was fetched for plain HTTP")
	}
	e.assertNoValue(t)
}

// slowReader returns one part per Read, so a body is sent in chunks.
type slowReader struct {
	parts []string
}

func (s *slowReader) Read(b []byte) (int, error) {
	if len(s.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(b, s.parts[0])
	s.parts[0] = s.parts[0][n:]
	if s.parts[0] == "" {
		s.parts = s.parts[1:]
	}
	time.Sleep(time.Millisecond)
	return n, nil
}

func TestTraceRefused(t *testing.T) {
	e := newCredEnv(t)
	for _, m := range []string{"TRACE", "TRACK"} {
		resp, text := do(t, e.client("http"), m, "https://api.test/",
			map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"]}, nil)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("X-Agentbox-Deny") != RuleMethod {
			t.Fatalf("%s: %d %v %q", m, resp.StatusCode, resp.Header, text)
		}
	}
	if n := len(e.up["api.test"].all()); n != 0 {
		t.Fatalf("upstream received %d requests", n)
	}
	if e.fetches.Load() != 0 {
		t.Error("a value was fetched for TRACE")
	}
	e.waitRule(t, RuleMethod, 2)
}

func TestUntrustedUpstreamRefused(t *testing.T) {
	e := newCredEnv(t)
	// api.test now answers with a certificate from a root agentbox does
	// not trust.
	rogue := newTestRoot(t, "rogue root")
	log := &upstreamLog{}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{rogue.issue(t, "api.test")}})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: recordingHandler(log), ErrorLog: quietLog}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	e.h.dial.route(ap(addrAPI, 443), l.Addr().String())

	resp, text := do(t, e.client("http"), "GET", "https://api.test/",
		map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"]}, nil)
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Agentbox-Deny") != RuleUpstreamTLS {
		t.Fatalf("response %d %v %q", resp.StatusCode, resp.Header, text)
	}
	if !strings.Contains(text, "certificate") {
		t.Errorf("refusal does not say why: %q", text)
	}
	if n := len(log.all()); n != 0 || e.fetches.Load() != 0 {
		t.Fatalf("untrusted upstream received %d requests (%d fetches)", n, e.fetches.Load())
	}
	d := e.waitRule(t, RuleUpstreamTLS, 1)[0]
	if d.Allowed || d.Host != "api.test" {
		t.Errorf("decision %+v", d)
	}
	e.assertNoValue(t, text)
}

func TestHeaderRestriction(t *testing.T) {
	e := newCredEnv(t)
	ph := e.ph["OTHER_KEY"] // Header: Authorization
	resp, _ := do(t, e.client("http"), "GET", "https://other.test/",
		map[string]string{"Authorization": "token " + ph, "X-Api-Key": ph, "Cookie": "a=" + ph}, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	r := e.up["other.test"].all()[0]
	if r.Header.Get("Authorization") != "token "+otherValue {
		t.Errorf("Authorization %q", r.Header.Get("Authorization"))
	}
	if r.Header.Get("X-Api-Key") != ph || r.Header.Get("Cookie") != "a="+ph {
		t.Errorf("the value went into a header it is not bound to: %v", r.Header)
	}
	e.assertNoValue(t)
}

func TestHostMismatchInsideTunnel(t *testing.T) {
	e := newCredEnv(t)
	for _, tc := range []struct{ line, host string }{
		{"GET / HTTP/1.1", "other.test"},                 // a shared front end would route by Host
		{"GET https://other.test/ HTTP/1.1", "api.test"}, // absolute form wins over Host
		{"GET / HTTP/1.1", "api.test:8443"},
		{"GET http://api.test/ HTTP/1.1", "api.test"},
	} {
		conn, br := e.interceptedConn(t, "api.test:443")
		fmt.Fprintf(conn, "%s\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", tc.line, tc.host, e.ph["API_KEY"])
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode/100 != 4 {
			t.Errorf("%q Host %q: status %d", tc.line, tc.host, resp.StatusCode)
		}
		conn.Close()
	}
	if n := len(e.up["api.test"].all()) + len(e.up["other.test"].all()); n != 0 || e.fetches.Load() != 0 {
		t.Fatalf("%d requests reached an upstream", n)
	}
	e.assertNoValue(t)
}

// interceptedConn opens a CONNECT tunnel to target and a TLS connection
// through it that trusts the run CA.
func (e *credEnv) interceptedConn(t testing.TB, target string) (*tls.Conn, *bufio.Reader) {
	t.Helper()
	c := mustDialProxy(t, e.h.addr)
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT %s: %v %v", target, resp, err)
	}
	host, _, _ := net.SplitHostPort(target)
	tc := tls.Client(c, &tls.Config{ServerName: host, RootCAs: e.clientCA, NextProtos: []string{"h2", "http/1.1"}})
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	if p := tc.ConnectionState().NegotiatedProtocol; p != "http/1.1" {
		t.Fatalf("ALPN %q, want http/1.1", p)
	}
	return tc, bufio.NewReader(tc)
}

func TestBasicCredentialsInjected(t *testing.T) {
	e := newCredEnv(t)
	// git and curl -u send the token as a Basic password.
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+e.ph["OTHER_KEY"]))
	resp, _ := do(t, e.client("http"), "GET", "https://other.test/repo.git/info/refs", map[string]string{"Authorization": auth}, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	r := e.up["other.test"].all()[0]
	user, pass, ok := (&http.Request{Header: r.Header}).BasicAuth()
	if !ok || user != "x-access-token" || pass != otherValue {
		t.Errorf("upstream Basic credentials %q %q %v", user, pass, ok)
	}
	d := e.waitRule(t, RuleCredentialUse, 1)[0]
	if d.Credential != "OTHER_KEY" || !strings.Contains(d.Reason, "Basic") {
		t.Errorf("decision %+v", d)
	}
	e.assertNoValue(t, base64.StdEncoding.EncodeToString([]byte("x-access-token:"+otherValue)))
}

func TestKeepAliveIntercepted(t *testing.T) {
	e := newCredEnv(t)
	conn, br := e.interceptedConn(t, "api.test:443")
	defer conn.Close()
	// One at a time, then three pipelined.
	for i := range 3 {
		fmt.Fprintf(conn, "GET /seq/%d HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer %s\r\n\r\n", i, e.ph["API_KEY"])
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("request %d: %v %v", i, resp, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	// HEAD and an Expect: 100-continue upload keep the framing right.
	fmt.Fprintf(conn, "HEAD /head HTTP/1.1\r\nHost: api.test\r\n\r\n")
	if resp, err := http.ReadResponse(br, &http.Request{Method: "HEAD"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD: %v %v", resp, err)
	}
	fmt.Fprintf(conn, "PUT /put HTTP/1.1\r\nHost: api.test\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("want 100 Continue: %v %v", resp, err)
	}
	fmt.Fprintf(conn, "data")
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("PUT: %v %v", resp, err)
	} else {
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	var pipelined strings.Builder
	for i := range 3 {
		fmt.Fprintf(&pipelined, "GET /pipe/%d HTTP/1.1\r\nHost: api.test\r\nX-Key: %s\r\n\r\n", i, e.ph["API_KEY"])
	}
	if _, err := io.WriteString(conn, pipelined.String()); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("pipelined %d: %v %v", i, resp, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	reqs := e.up["api.test"].all()
	if len(reqs) != 8 {
		t.Fatalf("upstream saw %d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.Remote != reqs[0].Remote {
			t.Errorf("request %d on another upstream connection (%s, %s)", i, r.Remote, reqs[0].Remote)
		}
		if r.Method == "PUT" && r.Body != "data" {
			t.Errorf("PUT body %q", r.Body)
		}
		if r.Method == "GET" && r.Header.Get("Authorization") != "Bearer "+apiValue && r.Header.Get("X-Key") != apiValue {
			t.Errorf("request %d not injected: %v", i, r.Header)
		}
	}
	if n := len(e.waitRule(t, RuleCredentialUse, 6)); n != 6 {
		t.Errorf("%d injection decisions", n)
	}
	e.assertNoValue(t)
}

func TestConcurrentInjection(t *testing.T) {
	e := newCredEnv(t)
	const clients, each = 12, 4
	var wg sync.WaitGroup
	errs := make(chan error, clients*each)
	for i := range clients {
		wg.Go(func() {
			c := e.client([]string{"http", "socks5"}[i%2])
			defer c.CloseIdleConnections()
			for j := range each {
				host, name := "api.test", "API_KEY"
				if (i+j)%2 == 1 {
					host, name = "other.test", "OTHER_KEY"
				}
				req, _ := http.NewRequest("GET", fmt.Sprintf("https://%s/%d/%d", host, i, j), nil)
				req.Header.Set("Authorization", "Bearer "+e.ph[name])
				resp, err := c.Do(req)
				if err != nil {
					errs <- err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					errs <- fmt.Errorf("%s: status %d", req.URL, resp.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := map[string]string{"api.test": apiValue, "other.test": otherValue}
	total := 0
	for host, v := range want {
		for _, r := range e.up[host].all() {
			total++
			if r.Header.Get("Authorization") != "Bearer "+v {
				t.Errorf("%s got %q", host, r.Header.Get("Authorization"))
			}
		}
	}
	if total != clients*each {
		t.Errorf("upstreams saw %d requests, want %d", total, clients*each)
	}
	e.assertNoValue(t)
}

func TestChunkedBodies(t *testing.T) {
	e := newCredEnv(t)
	conn, br := e.interceptedConn(t, "api.test:443")
	defer conn.Close()
	// A chunked body with a trailer to the bound host: passed on intact,
	// including its own (bound) placeholder, which is not injected there.
	ph := e.ph["API_KEY"]
	fmt.Fprintf(conn, "POST /upload HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\nAuthorization: Bearer %s\r\n\r\n", ph)
	fmt.Fprintf(conn, "5\r\nhello\r\n%x\r\n%s\r\n3\r\nend\r\n0\r\nX-Sum: 42\r\n\r\n", len(ph), ph)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("chunked POST: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	r := e.up["api.test"].all()[0]
	if r.Body != "hello"+ph+"end" || r.Trailer.Get("X-Sum") != "42" || r.Header.Get("Authorization") != "Bearer "+apiValue {
		t.Fatalf("upstream got %+v", r)
	}

	// OTHER_KEY's placeholder split across two chunks toward api.test:
	// refused before it leaves.
	other := e.ph["OTHER_KEY"]
	fmt.Fprintf(conn, "POST /upload HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\n\r\n")
	fmt.Fprintf(conn, "%x\r\nx=%s\r\n", 2+10, other[:10])
	fmt.Fprintf(conn, "%x\r\n%s\r\n0\r\n\r\n", len(other)-10, other[10:])
	resp, err = http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Agentbox-Deny") != RuleCredentialLeak {
		t.Fatalf("split placeholder: %v %v", resp, err)
	}
	for _, r := range e.up["api.test"].all() {
		if strings.Contains(r.Body, other) {
			t.Fatalf("upstream received the placeholder: %+v", r)
		}
	}
	d := e.waitRule(t, RuleCredentialLeak, 1)[0]
	if d.Credential != "OTHER_KEY" || !strings.Contains(d.Reason, "body") {
		t.Errorf("decision %+v", d)
	}
	e.assertNoValue(t)
}

func TestCredentialValueProblems(t *testing.T) {
	e := newCredEnv(t, func(c *Config) {
		c.Credentials[0].Value = func(context.Context) (vault.Secret, error) {
			return vault.NewSecret([]byte("line\r\nX-Injected: 1")), nil
		}
		c.Credentials[1].Value = func(context.Context) (vault.Secret, error) {
			return vault.Secret{}, errors.New("vault is locked")
		}
	})
	for _, tc := range []struct{ host, name string }{{"api.test", "API_KEY"}, {"other.test", "OTHER_KEY"}} {
		resp, text := do(t, e.client("http"), "GET", "https://"+tc.host+"/",
			map[string]string{"Authorization": "Bearer " + e.ph[tc.name]}, nil)
		if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Agentbox-Deny") != RuleCredentialError {
			t.Fatalf("%s: %d %q", tc.host, resp.StatusCode, text)
		}
		if n := len(e.up[tc.host].all()); n != 0 {
			t.Fatalf("%s received %d requests", tc.host, n)
		}
		if !strings.Contains(text, tc.name) {
			t.Errorf("refusal %q does not name the credential", text)
		}
		if strings.Contains(text, "X-Injected") || strings.Contains(e.logs.String(), "X-Injected") {
			t.Errorf("the value shows up: %q", text)
		}
	}
	e.waitRule(t, RuleCredentialError, 2)
}

func TestUpgradeRelayed(t *testing.T) {
	e := newCredEnv(t)
	// api.test answers an upgrade with 101 and then echoes.
	var gotAuth string
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{e.root.issue(t, "api.test")}})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ErrorLog: quietLog, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		_ = rw.Flush()
		_, _ = io.Copy(conn, rw)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	e.h.dial.route(ap(addrAPI, 443), l.Addr().String())

	conn, br := e.interceptedConn(t, "api.test:443")
	defer conn.Close()
	fmt.Fprintf(conn, "GET /ws HTTP/1.1\r\nHost: api.test\r\nConnection: Upgrade\r\nUpgrade: echo\r\nAuthorization: Bearer %s\r\n\r\n", e.ph["API_KEY"])
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	msg := "ping over the upgraded stream"
	if _, err := io.WriteString(conn, msg); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(br, buf); err != nil || string(buf) != msg {
		t.Fatalf("echo %q %v", buf, err)
	}
	if gotAuth != "Bearer "+apiValue {
		t.Errorf("upgrade request Authorization %q", gotAuth)
	}
}

func TestBoundHostWithoutTLS(t *testing.T) {
	if !waitDataBlocks {
		t.Skip("needs waitData to notice an upstream that speaks first")
	}
	e := newCredEnv(t)
	// api.test:443 is a server that speaks first (not TLS): the tunnel is
	// not intercepted and does not wait for the client.
	banner := tcpServer(t, func(c net.Conn) {
		_, _ = io.WriteString(c, "220 ready\r\n")
		_, _ = io.Copy(c, c)
	})
	e.h.dial.route(ap(addrAPI, 443), banner)
	c := mustDialProxy(t, e.h.addr)
	fmt.Fprintf(c, "CONNECT api.test:443 HTTP/1.1\r\n\r\n")
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	line, err := br.ReadString('\n')
	if err != nil || line != "220 ready\r\n" {
		t.Fatalf("banner %q %v", line, err)
	}
	_, _ = io.WriteString(c, "hello "+e.ph["API_KEY"])
	buf := make([]byte, len("hello ")+len(e.ph["API_KEY"]))
	if _, err := io.ReadFull(br, buf); err != nil || string(buf) != "hello "+e.ph["API_KEY"] {
		t.Fatalf("echo %q %v", buf, err)
	}

	// A client that speaks first but not TLS: spliced, untouched.
	e.h.dial.route(ap(addrAPI, 443), echoServer(t))
	c2 := mustDialProxy(t, e.h.addr)
	fmt.Fprintf(c2, "CONNECT api.test:443 HTTP/1.1\r\n\r\n")
	br2 := bufio.NewReader(c2)
	if resp, err := http.ReadResponse(br2, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	msg := "GET / HTTP/1.1\r\nAuthorization: " + e.ph["API_KEY"] + "\r\n\r\n"
	_, _ = io.WriteString(c2, msg)
	buf = make([]byte, len(msg))
	if _, err := io.ReadFull(br2, buf); err != nil || string(buf) != msg {
		t.Fatalf("echo %q %v", buf, err)
	}
	if e.fetches.Load() != 0 {
		t.Error("a value was fetched for a tunnel that is not TLS")
	}
}

func TestFrontedTunnelToBoundHostStillRefused(t *testing.T) {
	e := newCredEnv(t)
	c := mustDialProxy(t, e.h.addr)
	fmt.Fprintf(c, "CONNECT api.test:443 HTTP/1.1\r\n\r\n")
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	tc := tls.Client(c, &tls.Config{ServerName: "evil.test", RootCAs: e.clientCA})
	if err := tc.Handshake(); err == nil {
		t.Fatal("handshake with a fronted SNI succeeded")
	}
	e.waitRule(t, RuleSNIMismatch, 1)
}

// TestInterceptResumesSessions: the client-facing TLS config is shared, so
// a client resumes its session on the next intercepted connection.
func TestInterceptResumesSessions(t *testing.T) {
	e := newCredEnv(t)
	cache := tls.NewLRUClientSessionCache(8)
	for i := range 2 {
		c := mustDialProxy(t, e.h.addr)
		fmt.Fprintf(c, "CONNECT api.test:443 HTTP/1.1\r\n\r\n")
		br := bufio.NewReader(c)
		if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		tc := tls.Client(c, &tls.Config{ServerName: "api.test", RootCAs: e.clientCA, ClientSessionCache: cache})
		fmt.Fprintf(tc, "GET / HTTP/1.1\r\nHost: api.test\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(tc), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("request %d: %v %v", i, resp, err)
		}
		if got := tc.ConnectionState().DidResume; got != (i == 1) {
			t.Errorf("connection %d: resumed %v", i, got)
		}
		tc.Close()
	}
}
