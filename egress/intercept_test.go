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
	for _, tc := range []struct{ tunnel, line, host, cred string }{
		{"api.test:443", "GET / HTTP/1.1", "other.test", "API_KEY"},                 // a shared front end would route by Host
		{"api.test:443", "GET https://other.test/ HTTP/1.1", "api.test", "API_KEY"}, // absolute form wins over Host
		{"api.test:443", "GET / HTTP/1.1", "api.test:8443", "API_KEY"},
		{"api.test:443", "GET http://api.test/ HTTP/1.1", "api.test", "API_KEY"},
		// Asking other.test's tunnel for api.test does not get API_KEY injected.
		{"other.test:443", "GET / HTTP/1.1", "api.test", "API_KEY"},
		{"other.test:443", "GET https://api.test/ HTTP/1.1", "api.test", "OTHER_KEY"},
	} {
		conn, br := e.interceptedConn(t, tc.tunnel)
		fmt.Fprintf(conn, "%s\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", tc.line, tc.host, e.ph[tc.cred])
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
