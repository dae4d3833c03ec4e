package egress

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/vault"
)

// benchCreds is a proxy with two credentials (API_KEY bound to api.test,
// OTHER_KEY to other.test, so requests to api.test are also scanned for
// OTHER_KEY's placeholder) and identical HTTPS upstreams for api.test
// (intercepted) and third.test (a plain tunnel).
type benchCreds struct {
	proxy string
	ca    *x509.CertPool
	ph    string
}

func newBenchCreds(b *testing.B) *benchCreds {
	root := newTestRoot(b, "bench root")
	res := &fakeResolver{answers: map[string][]netip.Addr{"api.test": {addrAPI}, "third.test": {addrThird}}}
	dial := &redirectDialer{}
	for host, a := range map[string]netip.Addr{"api.test": addrAPI, "third.test": addrThird} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			_, _ = io.WriteString(w, "ok")
		}))
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{root.issue(b, host)}}
		srv.Config.ErrorLog = quietLog
		srv.StartTLS()
		b.Cleanup(srv.Close)
		dial.route(ap(a, 443), srv.Listener.Addr().String())
	}
	ph, _ := NewPlaceholder("API_KEY")
	other, _ := NewPlaceholder("OTHER_KEY")
	val := func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(apiValue)), nil }
	p, err := New(Config{
		Policy: Policy{Allowed: []string{"api.test", "third.test"}}, Resolver: res, Dial: dial.Dial, Guard: NewGuard(),
		UpstreamRoots: root.pool,
		Credentials: []Credential{
			{Name: "API_KEY", Placeholder: ph, Hosts: []string{"api.test"}, Value: val},
			{Name: "OTHER_KEY", Placeholder: other, Hosts: []string{"other.test"}, Value: val},
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	addr := serveBench(b, p)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.CACertPEM())
	pool.AddCert(root.cert)
	return &benchCreds{proxy: addr, ca: pool, ph: ph}
}

func (bc *benchCreds) client(keepAlive bool) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:             http.ProxyURL(&url.URL{Scheme: "http", Host: bc.proxy}),
		TLSClientConfig:   &tls.Config{RootCAs: bc.ca, ClientSessionCache: tls.NewLRUClientSessionCache(8)},
		DisableKeepAlives: !keepAlive,
	}}
}

func (bc *benchCreds) request(b *testing.B, c *http.Client, host string, body []byte) time.Duration {
	var rd io.Reader = http.NoBody
	method := "GET"
	if body != nil {
		rd, method = bytes.NewReader(body), "POST"
	}
	req, _ := http.NewRequest(method, "https://"+host+"/v1/messages", rd)
	req.Header.Set("Authorization", "Bearer "+bc.ph)
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("%s: status %d", host, resp.StatusCode)
	}
	return time.Since(start)
}

// compare alternates requests to the plain tunnel and to the intercepted
// host and reports each one's mean time and the ratio.
func (bc *benchCreds) compare(b *testing.B, keepAlive bool, body []byte) {
	tunnel, intercepted := bc.client(keepAlive), bc.client(keepAlive)
	defer tunnel.CloseIdleConnections()
	defer intercepted.CloseIdleConnections()
	for range 3 { // warm up: connections, leaves, session tickets
		bc.request(b, tunnel, "third.test", body)
		bc.request(b, intercepted, "api.test", body)
	}
	var dt, di time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			dt += bc.request(b, tunnel, "third.test", body)
			di += bc.request(b, intercepted, "api.test", body)
		} else {
			di += bc.request(b, intercepted, "api.test", body)
			dt += bc.request(b, tunnel, "third.test", body)
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(dt.Microseconds())/n, "tunnel-µs/req")
	b.ReportMetric(float64(di.Microseconds())/n, "intercepted-µs/req")
	b.ReportMetric(float64(di)/float64(dt), "intercepted/tunnel")
}

// BenchmarkInterceptedRequest compares an HTTPS request with an injected
// credential to the same request through a plain tunnel (TLS end to end),
// on kept-alive connections.
func BenchmarkInterceptedRequest(b *testing.B) {
	newBenchCreds(b).compare(b, true, nil)
}

// BenchmarkInterceptedConnection is BenchmarkInterceptedRequest with a new
// connection per request: the intercepted one pays two TLS handshakes (the
// upstream one resumed) against one.
func BenchmarkInterceptedConnection(b *testing.B) {
	newBenchCreds(b).compare(b, false, nil)
}

// BenchmarkInterceptedUpload sends a 512 KiB body per request: held and
// scanned for OTHER_KEY's placeholder when intercepted.
func BenchmarkInterceptedUpload(b *testing.B) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 32<<10)
	b.SetBytes(int64(len(body)))
	newBenchCreds(b).compare(b, true, body)
}
