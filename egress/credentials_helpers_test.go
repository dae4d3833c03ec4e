package egress

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/internal/syncbuf"
	"github.com/agentbox-dev/agentbox/vault"
)

// quietLog drops the test servers' complaints about handshakes the tests
// make fail on purpose.
var quietLog = log.New(io.Discard, "", 0)

// testRoot is a root CA standing in for the public roots upstreams chain
// to.
type testRoot struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
	pem  []byte
}

func newTestRoot(t testing.TB, name string) *testRoot {
	t.Helper()
	key, der, cert, pool := selfSign(t, &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	})
	return &testRoot{cert: cert, key: key, pool: pool, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a server certificate for names signed by the root.
func (r *testRoot) issue(t testing.TB, names ...string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: names[0]},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, r.cert, &key.PublicKey, r.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// seenRequest is what an upstream received.
type seenRequest struct {
	Host, Method, URI, Remote string
	Header, Trailer           http.Header
	Body                      string
}

// upstreamLog records the requests an upstream received.
type upstreamLog = syncList[seenRequest]

// recordingHandler records each request and answers "ok HOST". Like many
// real servers it reflects Origin for CORS; under /echo it also repeats
// the request's header block (as echo services and some error pages do)
// in the body, a trailer, the reason phrase and a response header.
func recordingHandler(log *upstreamLog) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		log.add(seenRequest{Host: r.Host, Method: r.Method, URI: r.RequestURI, Remote: r.RemoteAddr,
			Header: r.Header.Clone(), Trailer: r.Trailer.Clone(), Body: string(body)})
		if o := r.Header.Get("Origin"); o != "" {
			w.Header().Set("Access-Control-Allow-Origin", o)
		}
		if strings.HasPrefix(r.URL.Path, "/echo") {
			echo(w, r)
			return
		}
		fmt.Fprintf(w, "ok %s", r.Host)
	}
}

// echo answers with everything r said about itself.
func echo(w http.ResponseWriter, r *http.Request) {
	var head strings.Builder
	_ = r.Header.Write(&head)
	auth := r.Header.Get("Authorization")
	if r.URL.Path == "/echo/malformed" { // a status line the client cannot parse
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(brw, "HTTP/1.1 %s\r\n\r\n", strings.ReplaceAll(auth, " ", "-"))
		_ = brw.Flush()
		return
	}
	if r.URL.Path == "/echo/status" { // in the reason phrase
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(brw, "HTTP/1.1 200 OK %s\r\nContent-Length: 2\r\n\r\nok", auth)
		_ = brw.Flush()
		return
	}
	if r.URL.Path == "/echo/name" { // in header names, as written and in lower case
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		v := strings.TrimPrefix(auth, "Bearer ")
		fmt.Fprintf(brw, "HTTP/1.1 200 OK\r\nX-E-%s: 1\r\nx-l-%s-x: 2\r\nContent-Length: 2\r\n\r\nok", v, strings.ToLower(v))
		_ = brw.Flush()
		return
	}
	if r.URL.Path == "/echo/range" { // honours Range and If-Range
		w.Header().Set("Etag", `"v1"`)
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader("value: "+auth+"\n"))
		return
	}
	if r.URL.Path == "/echo/partial" { // a part, asked for or not
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		part := auth[min(len(auth), 7):min(len(auth), 17)]
		fmt.Fprintf(brw, "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 7-%d/%d\r\nContent-Length: %d\r\n\r\n%s",
			7+len(part)-1, len(auth), len(part), part)
		_ = brw.Flush()
		return
	}
	if r.URL.Path == "/echo/ws" {
		// A WebSocket server that accepts permessage-deflate when offered
		// (or, with ?deflate, anyway) and sends the value, deflated then.
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		if r.URL.Query().Has("h2c") { // switches to HTTP/2 whatever was asked
			fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\nframe: %s\n", auth)
			_ = brw.Flush()
			return
		}
		if r.Header.Get("Sec-Websocket-Extensions") == "" && !r.URL.Query().Has("deflate") {
			fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
			_, _ = brw.Write(appendFrame(nil, true, 1, []byte("frame: "+auth+"\n")))
			_ = brw.Flush()
			return
		}
		var z bytes.Buffer
		zw, _ := flate.NewWriter(&z, flate.BestCompression)
		fmt.Fprintf(zw, "frame: %s\n", auth)
		_ = zw.Close()
		fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n")
		_, _ = brw.Write(z.Bytes())
		_ = brw.Flush()
		return
	}
	if r.URL.Path == "/echo/upgrade" {
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nframe: %s\n", auth)
		_ = brw.Flush()
		return
	}
	w.Header().Set("X-Echo-Authorization", auth)
	w.Header().Set("Trailer", "X-Echo-Trailer")
	if r.URL.Path == "/echo/gzip" {
		// Compressed although the client may have asked otherwise.
		// ?ce= lists the Content-Encoding fields, one per value.
		w.Header()["Content-Encoding"] = []string{"gzip"}
		if ce := r.URL.Query()["ce"]; len(ce) > 0 {
			w.Header()["Content-Encoding"] = ce
		}
		zw := gzip.NewWriter(w)
		_, _ = io.WriteString(zw, head.String())
		_ = zw.Close()
		return
	}
	// Padding moves the values across the relay's reads.
	fmt.Fprintf(w, "%s%s\n", strings.Repeat("p", 32<<10-7), head.String())
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	fmt.Fprintf(w, "again: %s\n", auth)
	w.Header().Set("X-Echo-Trailer", auth)
}

// Test hosts and their checked addresses.
var (
	addrAPI    = addrAllowed                         // api.test: API_KEY is bound to it
	addrOther2 = addrOther                           // other.test: OTHER_KEY is bound to it
	addrThird  = netip.MustParseAddr("203.0.113.30") // third.test: no credential
)

// Real values the tests inject; they must never show up anywhere but at
// the bound upstream.
const (
	apiValue   = "sk-REAL-api-value-6f1d0c2a9b"
	otherValue = "gh-REAL-other-value-88e1b7c4"
)

// credEnv is a proxy with two credentials, an HTTPS upstream per host and
// a capture of everything the proxy says.
type credEnv struct {
	h        *harness
	root     *testRoot
	logs     *syncbuf.Buffer
	ph       map[string]string // credential name → placeholder
	up       map[string]*upstreamLog
	fetches  atomic.Int64
	clientCA *x509.CertPool // the run CA and the test root
}

// credOption adjusts the credentials or config of a credEnv.
type credOption func(*Config)

func newCredEnv(t *testing.T, opts ...credOption) *credEnv {
	t.Helper()
	e := &credEnv{root: newTestRoot(t, "test root"), logs: &syncbuf.Buffer{},
		ph: map[string]string{}, up: map[string]*upstreamLog{}}
	for _, n := range []string{"API_KEY", "OTHER_KEY"} {
		ph, err := NewPlaceholder(n)
		if err != nil {
			t.Fatal(err)
		}
		e.ph[n] = ph
	}
	cfg := Config{
		Policy:        Policy{Allowed: []string{"api.test", "other.test", "third.test"}},
		Logger:        slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		UpstreamRoots: e.root.pool,
		Credentials: []Credential{
			{Name: "API_KEY", Placeholder: e.ph["API_KEY"], Hosts: []string{"api.test"}, Value: e.value(apiValue)},
			{Name: "OTHER_KEY", Placeholder: e.ph["OTHER_KEY"], Hosts: []string{"other.test"}, Header: "Authorization", Value: e.value(otherValue)},
		},
	}
	for _, o := range opts {
		o(&cfg)
	}
	e.h = newHarness(t, cfg)
	e.h.res.mu.Lock()
	e.h.res.answers["api.test"] = []netip.Addr{addrAPI}
	e.h.res.answers["other.test"] = []netip.Addr{addrOther2}
	e.h.res.answers["third.test"] = []netip.Addr{addrThird}
	e.h.res.mu.Unlock()
	for host, a := range map[string]netip.Addr{"api.test": addrAPI, "other.test": addrOther2, "third.test": addrThird} {
		e.routeTLS(t, host, a)
		plain := httptest.NewServer(recordingHandler(e.up[host]))
		plain.Config.ErrorLog = quietLog
		t.Cleanup(plain.Close)
		e.h.dial.route(ap(a, 80), plain.Listener.Addr().String())
	}
	e.clientCA = x509.NewCertPool()
	if !e.clientCA.AppendCertsFromPEM(e.h.p.CACertPEM()) {
		t.Fatal("CACertPEM holds no certificate")
	}
	e.clientCA.AddCert(e.root.cert)
	return e
}

// routeTLS starts an HTTPS upstream for host with a certificate from
// e.root, records its requests in e.up[host] and routes a:443 to it.
func (e *credEnv) routeTLS(t *testing.T, host string, a netip.Addr) {
	e.routeTLSNames(t, a, host)
}

// routeTLSNames is routeTLS with a certificate for names (names[0] names
// the log).
func (e *credEnv) routeTLSNames(t *testing.T, a netip.Addr, names ...string) {
	t.Helper()
	log := &upstreamLog{}
	e.up[names[0]] = log
	e.serveTLS(t, a, 443, recordingHandler(log), names...)
}

// serveTLS starts an HTTPS upstream serving h with a certificate from
// e.root for names, and routes a:port to it.
func (e *credEnv) serveTLS(t *testing.T, a netip.Addr, port uint16, h http.Handler, names ...string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{e.root.issue(t, names...)}}
	srv.Config.ErrorLog = quietLog
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e.h.dial.route(ap(a, port), srv.Listener.Addr().String())
}

// authLog is what a test's upstream keeps of the Authorization headers it
// was sent: all of them, and the last, which it shows back on another
// request (a debug page, a trace, a banner), as some real services do.
type authLog struct {
	mu  sync.Mutex
	all []string
}

func (l *authLog) record(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, r.Header.Get("Authorization"))
}

// last is the last Authorization recorded ("" before any).
func (l *authLog) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.all) == 0 {
		return ""
	}
	return l.all[len(l.all)-1]
}

// got is every Authorization recorded, in order.
func (l *authLog) got() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.all...)
}

// value returns a Credential.Value that hands out a fresh copy each time.
func (e *credEnv) value(v string) func(context.Context) (vault.Secret, error) {
	return func(context.Context) (vault.Secret, error) {
		e.fetches.Add(1)
		return vault.NewSecret([]byte(v)), nil
	}
}

// client returns an HTTP client that reaches the proxy by CONNECT
// ("http") or SOCKS5 ("socks5") and trusts the run CA and the test root.
func (e *credEnv) client(scheme string) *http.Client {
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			Proxy:           http.ProxyURL(&url.URL{Scheme: scheme, Host: e.h.addr}),
			TLSClientConfig: &tls.Config{RootCAs: e.clientCA},
		},
	}
}

// do sends a request and returns the response with its body read.
func do(t *testing.T, c *http.Client, method, u string, hdr map[string]string, body io.Reader) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// assertNoValue fails if a real value shows up in a decision, a log record
// or any of texts.
func (e *credEnv) assertNoValue(t *testing.T, texts ...string) {
	t.Helper()
	var all []string
	for _, d := range e.h.sink.all() {
		all = append(all, fmt.Sprintf("%+v %#v", d, d))
	}
	all = append(all, e.logs.String())
	all = append(all, texts...)
	for _, s := range all {
		for _, v := range []string{apiValue, otherValue} {
			if i := strings.Index(s, v); i >= 0 {
				t.Fatalf("a real value leaked: %q", s[max(0, i-80):min(len(s), i+len(v)+80)])
			}
		}
	}
}

// decisionsWith returns the decisions with rule.
func (e *credEnv) decisionsWith(rule string) []Decision {
	var out []Decision
	for _, d := range e.h.sink.all() {
		if d.Rule == rule {
			out = append(out, d)
		}
	}
	return out
}

// waitRule waits for n decisions with rule.
func (e *credEnv) waitRule(t *testing.T, rule string, n int) []Decision {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		ds := e.decisionsWith(rule)
		if len(ds) >= n || time.Now().After(deadline) {
			if len(ds) < n {
				t.Fatalf("want %d %s decisions, got %d: %+v", n, rule, len(ds), e.h.sink.all())
			}
			return ds
		}
		time.Sleep(2 * time.Millisecond)
	}
}
