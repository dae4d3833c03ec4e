package egress

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Test addresses: documentation ranges the guard lets through. Nothing is
// ever sent to them: the injected dialer redirects each to a loopback server.
var (
	addrAllowed  = netip.MustParseAddr("192.0.2.10")
	addrAllowed6 = netip.MustParseAddr("2001:db8::10")
	addrOther    = netip.MustParseAddr("198.51.100.20")
)

// fakeResolver answers from a map and records every lookup.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr
	// seq, when set for a name, returns successive answers per lookup
	// (the last one repeats): a rebinding DNS server.
	seq     map[string][][]netip.Addr
	lookups []string
}

// set makes name resolve to addrs.
func (r *fakeResolver) set(name string, addrs ...netip.Addr) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers[name] = addrs
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !strings.HasSuffix(host, ".") {
		return nil, fmt.Errorf("fakeResolver: %q is not rooted: the proxy must resolve the name it judged, not a search-list expansion", host)
	}
	host = strings.TrimSuffix(host, ".")
	r.lookups = append(r.lookups, host)
	if s := r.seq[host]; len(s) > 0 {
		ans := s[0]
		if len(s) > 1 {
			r.seq[host] = s[1:]
		}
		return ans, nil
	}
	if a, ok := r.answers[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (r *fakeResolver) looked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lookups...)
}

// redirectDialer maps checked addresses to loopback servers and records what
// the proxy asked to dial. An address without a route fails (and is
// recorded), so a test can assert the proxy never tried it.
type redirectDialer struct {
	mu     sync.Mutex
	routes map[netip.AddrPort]string
	dialed []netip.AddrPort
}

func (d *redirectDialer) route(from netip.AddrPort, to string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.routes == nil {
		d.routes = make(map[netip.AddrPort]string)
	}
	d.routes[from] = to
}

func (d *redirectDialer) Dial(ctx context.Context, network string, addr netip.AddrPort) (net.Conn, error) {
	d.mu.Lock()
	d.dialed = append(d.dialed, addr)
	to, ok := d.routes[addr]
	d.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("test dialer: no route for %s: %w", addr, errNoRoute)
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, to)
}

var errNoRoute = syscall.ECONNREFUSED

func (d *redirectDialer) dials() []netip.AddrPort {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]netip.AddrPort(nil), d.dialed...)
}

// syncList is a list that goroutines append to while a test reads it.
type syncList[T any] struct {
	mu    sync.Mutex
	items []T
}

func (l *syncList[T]) add(v T) {
	l.mu.Lock()
	l.items = append(l.items, v)
	l.mu.Unlock()
}

// all returns a copy of the items so far.
func (l *syncList[T]) all() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]T(nil), l.items...)
}

// recorder is a Sink that keeps every decision.
type recorder struct{ syncList[Decision] }

func (r *recorder) Record(d Decision) { r.add(d) }

// waitFor polls until n decisions are recorded or a second passes.
func (r *recorder) waitFor(t *testing.T, n int) []Decision {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if ds := r.all(); len(ds) >= n {
			return ds
		}
		time.Sleep(2 * time.Millisecond)
	}
	ds := r.all()
	t.Fatalf("want %d decisions, got %d: %+v", n, len(ds), ds)
	return nil
}

// harness is a running proxy with injected resolver and dialer.
type harness struct {
	p        *Proxy
	addr     string
	ln       *net.TCPListener
	res      *fakeResolver
	dial     *redirectDialer
	sink     *recorder
	cancel   context.CancelFunc
	serveErr chan error
}

// newHarness starts a proxy on loopback. cfg's Resolver, Dial and Sink are
// replaced by test doubles; the resolver knows allowed.test and
// rebind.test unless the test adds more.
func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := &harness{
		res: &fakeResolver{answers: map[string][]netip.Addr{
			"allowed.test":     {addrAllowed},
			"www.allowed.test": {addrAllowed},
			"rebind.test":      {netip.MustParseAddr("127.0.0.1")},
			"evil.test":        {addrOther},
		}, seq: map[string][][]netip.Addr{}},
		dial: &redirectDialer{},
		sink: &recorder{},
	}
	cfg.Resolver, cfg.Dial, cfg.Sink = h.res, h.dial.Dial, h.sink
	if cfg.Guard == nil {
		cfg.Guard = NewGuard()
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.p, h.addr, h.ln, h.cancel = p, l.Addr().String(), l.(*net.TCPListener), cancel
	h.serveErr = make(chan error, 1)
	go func() { h.serveErr <- p.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-h.serveErr:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Serve did not return after cancel")
		}
	})
	return h
}

// testCert returns a self-signed certificate for names and its pool.
func testCert(t testing.TB, names ...string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, der, leaf, pool := selfSign(t, &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: names[0]},
		DNSNames:              names,
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// selfSign makes a fresh P-256 key and signs tmpl with it, returning the
// key, the certificate (DER and parsed) and a pool that trusts it.
func selfSign(t testing.TB, tmpl *x509.Certificate) (*ecdsa.PrivateKey, []byte, *x509.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return key, der, cert, pool
}

// tcpServer accepts on loopback and runs handle for each connection.
func tcpServer(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	accepting := make(chan struct{})
	t.Cleanup(func() {
		_ = l.Close()
		// Only once the accept loop is over may Wait run: a connection
		// accepted during the Close would otherwise Add to wg beside it.
		<-accepting
		mu.Lock()
		for c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	go func() {
		defer close(accepting)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			wg.Go(func() {
				defer func() {
					mu.Lock()
					delete(conns, c)
					mu.Unlock()
					_ = c.Close()
				}()
				handle(c)
			})
		}
	}()
	return l.Addr().String()
}

func mustDialProxy(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func ap(a netip.Addr, port uint16) netip.AddrPort { return netip.AddrPortFrom(a, port) }
