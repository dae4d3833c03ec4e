//go:build linux

package egress_test

import (
	"bufio"
	"context"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/egress"
)

// echKeys is an Encrypted Client Hello key pair and its ECHConfig, as a
// front end that serves ECH (Cloudflare does for every site it fronts)
// publishes it in DNS (the HTTPS record's ech parameter).
type echKeys struct {
	config     []byte // one ECHConfig
	list       []byte // an ECHConfigList holding config
	privateKey []byte
}

// newECHKeys makes an X25519 ECH key whose ECHConfig names publicName as
// the name clients put in the outer ClientHello.
func newECHKeys(publicName string) echKeys {
	k, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	pub := k.PublicKey().Bytes()
	var c []byte
	u16 := func(b []byte, v int) []byte { return append(b, byte(v>>8), byte(v)) }
	var body []byte
	body = append(body, 7)      // config_id
	body = u16(body, 0x0020)    // DHKEM(X25519, HKDF-SHA256)
	body = u16(body, len(pub))  // public_key
	body = append(body, pub...) //
	body = u16(body, 4)         // cipher_suites
	body = u16(body, 0x0001)    // HKDF-SHA256
	body = u16(body, 0x0001)    // AES-128-GCM
	body = append(body, 0)      // maximum_name_length
	body = append(body, byte(len(publicName)))
	body = append(body, publicName...)
	body = u16(body, 0) // extensions
	c = u16(c, 0xfe0d)
	c = u16(c, len(body))
	c = append(c, body...)
	list := u16(nil, len(c))
	list = append(list, c...)
	return echKeys{config: c, list: list, privateKey: k.Bytes()}
}

// echFront is a TLS front end shared by two sites, as a CDN is: it
// serves ECH with allowed.test as the public name and routes each
// connection by the server name it ends up with, which for an ECH
// connection is the one in the encrypted inner ClientHello.
type echFront struct {
	addr string
	keys echKeys
	ca   *x509.CertPool
	mu   sync.Mutex
	seen []string // "tls NAME ech=BOOL" and "http NAME host=HOST"
}

func (f *echFront) note(format string, args ...any) {
	f.mu.Lock()
	f.seen = append(f.seen, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *echFront) events() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.seen, "\n")
}

func startECHFront(t *testing.T) *echFront {
	t.Helper()
	root := newRedteamRoot(t)
	f := &echFront{keys: newECHKeys("allowed.test"), ca: root.pool}
	certs := map[string]tls.Certificate{
		"allowed.test": root.issue(t, "allowed.test"),
		"other.test":   root.issue(t, "other.test"),
	}
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS13,
		EncryptedClientHelloKeys: []tls.EncryptedClientHelloKey{{
			Config: f.keys.config, PrivateKey: f.keys.privateKey, SendAsRetry: true,
		}},
		GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
			c, ok := certs[h.ServerName]
			if !ok {
				return nil, fmt.Errorf("no site %q", h.ServerName)
			}
			return &c, nil
		},
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = l.Addr().String()
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f.note("http sni=%s ech=%v host=%s", r.TLS.ServerName, r.TLS.ECHAccepted, r.Host)
			fmt.Fprintf(w, "site %s\n", r.TLS.ServerName)
		}),
		TLSConfig: cfg,
		ErrorLog:  log.New(io.Discard, "", 0),
	}
	go func() { _ = srv.ServeTLS(l, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	return f
}

// echProxy is an egress proxy that allows allowed.test only, whose
// checked address (allowedAddr:443) is dialled to front.
func echProxy(t *testing.T, front string) (string, func() []egress.Decision) {
	t.Helper()
	var mu sync.Mutex
	var ds []egress.Decision
	p, err := egress.New(egress.Config{
		Policy:   egress.Policy{Allowed: []string{"allowed.test"}},
		Resolver: newResolver(),
		Guard:    egress.NewGuard(egress.WithHostAddrs(func() ([]netip.Addr, error) { return nil, nil }), egress.WithLocalCheck(func(netip.Addr) bool { return false })),
		Dial: func(ctx context.Context, network string, addr netip.AddrPort) (net.Conn, error) {
			if addr != netip.AddrPortFrom(netip.MustParseAddr(allowedAddr), 443) {
				return nil, fmt.Errorf("test dialer: no route to %s", addr)
			}
			var d net.Dialer
			return d.DialContext(ctx, "tcp", front)
		},
		Sink: egress.SinkFunc(func(d egress.Decision) {
			mu.Lock()
			ds = append(ds, d)
			mu.Unlock()
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = p.Serve(ctx, l) }()
	t.Cleanup(func() { _ = l.Close() })
	return l.Addr().String(), func() []egress.Decision {
		mu.Lock()
		defer mu.Unlock()
		return append([]egress.Decision(nil), ds...)
	}
}

// echGet opens a CONNECT tunnel to allowed.test:443 through proxy, runs
// TLS for serverName (with ECH when list is set) and GETs /. It returns
// the response's first body line or the error.
func echGet(proxy, serverName string, list []byte, roots *x509.CertPool) (string, error) {
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		return "", err
	}
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("CONNECT: %s", resp.Status)
	}
	tc := tls.Client(c, &tls.Config{ServerName: serverName, RootCAs: roots, MinVersion: tls.VersionTLS13,
		EncryptedClientHelloConfigList: list})
	if err := tc.Handshake(); err != nil {
		return "", fmt.Errorf("tls: %w", err)
	}
	fmt.Fprintf(tc, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", serverName)
	r2, err := http.ReadResponse(bufio.NewReader(tc), nil)
	if err != nil {
		return "", err
	}
	defer r2.Body.Close()
	b, _ := io.ReadAll(r2.Body)
	return strings.TrimSpace(string(b)), nil
}

// redteamRoot is a throwaway CA for the test's own servers.
type redteamRoot struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newRedteamRoot(t testing.TB) *redteamRoot {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "redteam root"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
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
	return &redteamRoot{cert: cert, key: key, pool: pool}
}

func (r *redteamRoot) issue(t testing.TB, name string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		DNSNames: []string{name}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, r.cert, &key.PublicKey, r.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestNetRedteamECHFronting: a tunnel to an allowed host on a shared front
// end (a CDN) must not reach another site of that front end. The outer
// ClientHello names the allowed host, as the SNI check demands; with
// Encrypted Client Hello the front end routes by the inner ClientHello,
// which names another site and which the proxy cannot read.
func TestNetRedteamECHFronting(t *testing.T) {
	inNetns(t)
	front := startECHFront(t)
	proxy, decisions := echProxy(t, front.addr)

	// Control: plain TLS to the allowed site works.
	got, err := echGet(proxy, "allowed.test", nil, front.ca)
	if err != nil || got != "site allowed.test" {
		t.Fatalf("control: %q %v\nfront saw:\n%s", got, err, front.events())
	}
	// Control: without ECH, another site's name in the SNI is refused.
	if got, err := echGet(proxy, "other.test", nil, front.ca); err == nil {
		t.Fatalf("fronting without ECH got through: %q\nfront saw:\n%s", got, front.events())
	}
	// The attack: ECH, outer SNI allowed.test, inner SNI other.test.
	got, err = echGet(proxy, "other.test", front.keys.list, front.ca)
	if strings.Contains(front.events(), "sni=other.test") || got == "site other.test" {
		t.Errorf("ESCAPE: an ECH ClientHello whose outer name is allowed.test reached the front end's other.test site through a tunnel the proxy allowed for allowed.test (got %q, err %v)\nfront saw:\n%s\ndecisions: %+v",
			got, err, front.events(), decisions())
	}
}
