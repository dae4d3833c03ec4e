package egress

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/vault"
)

func TestNewPlaceholder(t *testing.T) {
	re := regexp.MustCompile(`^agentbox-placeholder-GITHUB_TOKEN-[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for range 100 {
		ph, err := NewPlaceholder("GITHUB_TOKEN")
		if err != nil {
			t.Fatal(err)
		}
		if !re.MatchString(ph) {
			t.Fatalf("placeholder %q", ph)
		}
		if seen[ph] {
			t.Fatalf("placeholder %q repeated", ph)
		}
		seen[ph] = true
		for i := 0; i < len(ph); i++ {
			if !placeholderByte(ph[i]) {
				t.Fatalf("placeholder %q holds %q, unsafe in a header or URL", ph, ph[i])
			}
		}
	}
	for _, bad := range []string{"", "A B", "A/B", "A\r\nB", "NAME-WITH-DASH", strings.Repeat("A", 129)} {
		if _, err := NewPlaceholder(bad); !errors.Is(err, ErrInvalidCredential) {
			t.Errorf("NewPlaceholder(%q) = %v", bad, err)
		}
	}
}

func TestCredentialConfigRefused(t *testing.T) {
	ph := func(n string) string { p, _ := NewPlaceholder(n); return p }
	val := func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte("v")), nil }
	a := ph("A")
	good := Credential{Name: "A", Placeholder: a, Hosts: []string{"api.test"}, Value: val}
	with := func(f func(*Credential)) Credential { c := good; f(&c); return c }
	for _, tc := range []struct {
		name  string
		creds []Credential
		want  string
	}{
		{"no value", []Credential{with(func(c *Credential) { c.Value = nil })}, "no Value"},
		{"bad name", []Credential{with(func(c *Credential) { c.Name = "a b" })}, "name"},
		{"short placeholder", []Credential{with(func(c *Credential) { c.Placeholder = "short" })}, "placeholder"},
		{"placeholder with space", []Credential{with(func(c *Credential) { c.Placeholder = "agentbox placeholder x" })}, "placeholder"},
		{"placeholder with CRLF", []Credential{with(func(c *Credential) { c.Placeholder = "agentbox-place\r\nholder" })}, "placeholder"},
		{"every host", []Credential{with(func(c *Credential) { c.Hosts = []string{"api.test", "*"} })}, "every host"},
		{"bad pattern", []Credential{with(func(c *Credential) { c.Hosts = []string{"a..b"} })}, "invalid host pattern"},
		{"bad header", []Credential{with(func(c *Credential) { c.Header = "Bad Header:" })}, "header"},
		{"header that frames the request", []Credential{with(func(c *Credential) { c.Header = "Content-Length" })}, "header Content-Length frames or routes the request"},
		{"header that frames the request, with _ for -", []Credential{with(func(c *Credential) { c.Header = "Content_Length" })}, "header Content_Length frames or routes"},
		{"host header", []Credential{with(func(c *Credential) { c.Header = "host" })}, "header host frames or routes"},
		{"transfer-encoding header", []Credential{with(func(c *Credential) { c.Header = "Transfer-Encoding" })}, "frames or routes"},
		{"the proxy's own header", []Credential{with(func(c *Credential) { c.Header = "Proxy-Authorization" })}, "frames or routes"},
		{"the proxy's own header, other spelling", []Credential{with(func(c *Credential) { c.Header = "PROXY_AUTHORIZATION" })}, "frames or routes"},
		{"header servers send back", []Credential{with(func(c *Credential) { c.Header = "Idempotency-Key" })}, "send back header Idempotency-Key"},
		{"header servers send back, other spelling", []Credential{with(func(c *Credential) { c.Header = "x_next_page_token" })}, "send back header"},
		{"twice", []Credential{good, with(func(c *Credential) { c.Placeholder = ph("A") })}, "twice"},
		{"nested placeholders", []Credential{good, with(func(c *Credential) { c.Name = "B"; c.Placeholder = a + "x" })}, "contain one another"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(Config{Credentials: tc.creds, UpstreamRoots: x509.NewCertPool()})
			if !errors.Is(err, ErrInvalidCredential) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want %q", err, tc.want)
			}
		})
	}
	p, err := New(Config{Credentials: []Credential{good}, UpstreamRoots: x509.NewCertPool()})
	if err != nil || p.CACertPEM() == nil {
		t.Fatalf("a good credential: %v", err)
	}
	if p, _ := New(Config{}); p.CACertPEM() != nil {
		t.Error("a proxy without credentials has a CA")
	}
}

// TestCANameConstraints attacks the CA: even with its key, a certificate
// for a host no credential is bound to does not verify.
func TestCANameConstraints(t *testing.T) {
	var bound []Pattern
	for _, s := range []string{"api.test", "*.models.test:443", "192.0.2.10"} {
		p, err := ParsePattern(s)
		if err != nil {
			t.Fatal(err)
		}
		bound = append(bound, p)
	}
	c, err := newCA(2*time.Hour, bound)
	if err != nil {
		t.Fatal(err)
	}
	cert := c.cert
	if k, ok := cert.PublicKey.(*ecdsa.PublicKey); !ok || k.Curve != elliptic.P256() {
		t.Errorf("CA key %T, want ECDSA P-256", cert.PublicKey)
	}
	if !cert.IsCA || !cert.MaxPathLenZero || cert.MaxPathLen != 0 || !cert.PermittedDNSDomainsCritical {
		t.Errorf("CA basics: %+v", cert)
	}
	if life := cert.NotAfter.Sub(cert.NotBefore); life > 2*time.Hour+clockSlack+time.Second {
		t.Errorf("CA valid for %v", life)
	}
	blk, _ := pem.Decode(c.certPEM)
	if blk == nil || blk.Type != "CERTIFICATE" || !bytes.Equal(blk.Bytes, cert.Raw) {
		t.Fatal("certPEM is not the CA certificate")
	}
	if bytes.Contains(c.certPEM, []byte("PRIVATE")) {
		t.Fatal("the PEM holds a key")
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"api.test", true},
		{"a.models.test", true},
		{"192.0.2.10", true},
		{"evil.test", false},
		{"models.test", false}, // "*." covers subdomains only
		{"api.test.evil.test", false},
		{"192.0.2.11", false},
		{"2001:db8::1", false},
	} {
		tg, err := parseHost(tc.host)
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := c.leafFor(tg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = leaf.Leaf.Verify(x509.VerifyOptions{DNSName: tc.host, Roots: pool, CurrentTime: time.Now()})
		if (err == nil) != tc.ok {
			t.Errorf("%s: verify error %v, want ok=%v", tc.host, err, tc.ok)
		}
		if leaf.Leaf.NotAfter.After(cert.NotAfter) {
			t.Errorf("%s: leaf outlives the CA", tc.host)
		}
	}
	if again, _ := c.leafFor(target{name: "api.test"}); again != c.leaves["api.test"] {
		t.Error("leaf not cached")
	}
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func countCerts(b []byte) int {
	n := 0
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			return n
		}
		n++
	}
}

func TestSystemRootsFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	r1, r2 := newTestRoot(t, "root one"), newTestRoot(t, "root two")
	// A bundle with junk, a duplicate and a non-certificate block.
	bundle := slices.Concat([]byte("junk\n"), r1.pem, r1.pem,
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}}))
	file := writeFile(t, dir, "bundle.pem", bundle)
	certDir := filepath.Join(dir, "certs")
	if err := os.Mkdir(certDir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, certDir, "two.pem", r2.pem)
	writeFile(t, certDir, "one-again.crt", r1.pem)

	t.Setenv(EnvCertFile, file)
	t.Setenv(EnvCertDir, "")
	got, err := SystemRootsPEM()
	if err != nil || countCerts(got) != 1 || !bytes.Contains(got, r1.pem) {
		t.Fatalf("SSL_CERT_FILE alone: %d certificates, %v", countCerts(got), err)
	}
	t.Setenv(EnvCertDir, certDir)
	got, err = SystemRootsPEM()
	if err != nil || countCerts(got) != 2 || !bytes.Contains(got, r2.pem) {
		t.Fatalf("with SSL_CERT_DIR: %d certificates, %v", countCerts(got), err)
	}
	t.Setenv(EnvCertDir, "")
	t.Setenv(EnvCertFile, filepath.Join(dir, "missing.pem"))
	if _, err := SystemRootsPEM(); err == nil || !strings.Contains(err.Error(), EnvCertFile) {
		t.Fatalf("missing SSL_CERT_FILE: %v", err)
	}
	t.Setenv(EnvCertFile, writeFile(t, dir, "empty.pem", []byte("nothing here")))
	if _, err := SystemRootsPEM(); !errors.Is(err, ErrNoRoots) {
		t.Fatalf("empty bundle: %v", err)
	}
}

func TestSystemRootsDefault(t *testing.T) {
	t.Setenv(EnvCertFile, "")
	t.Setenv(EnvCertDir, "")
	got, err := SystemRootsPEM()
	if errors.Is(err, ErrNoRoots) {
		t.Skip("no system roots on this machine")
	}
	if err != nil || countCerts(got) < 10 {
		t.Fatalf("system roots: %d, %v", countCerts(got), err)
	}
}

// TestUpstreamTrustFromSSLCertFile runs the proxy without UpstreamRoots:
// it trusts what SSL_CERT_FILE names, and its bundle is those roots and
// its CA.
func TestUpstreamTrustFromSSLCertFile(t *testing.T) {
	root := newTestRoot(t, "test root")
	t.Setenv(EnvCertFile, writeFile(t, t.TempDir(), "roots.pem", root.pem))
	t.Setenv(EnvCertDir, "")
	e := newCredEnv(t, func(c *Config) { c.UpstreamRoots = nil })
	// newCredEnv made its own root for the upstreams; make the proxy's
	// trusted root sign them instead.
	e.root = root
	e.routeTLS(t, "api.test", addrAPI)
	resp, _ := do(t, e.client("http"), "GET", "https://api.test/", map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"]}, nil)
	if resp.StatusCode != 200 || e.up["api.test"].all()[0].Header.Get("Authorization") != "Bearer "+apiValue {
		t.Fatalf("status %d", resp.StatusCode)
	}
	bundle, err := e.h.p.TrustBundle()
	if err != nil || countCerts(bundle) != 2 || !bytes.Contains(bundle, root.pem) || !bytes.HasSuffix(bundle, e.h.p.CACertPEM()) {
		t.Fatalf("bundle with %d certificates, %v", countCerts(bundle), err)
	}
}

func TestTrustEnv(t *testing.T) {
	env := TrustEnv("/run/agentbox/ca.pem")
	for _, k := range []string{"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"} {
		if !slices.Contains(env, k+"=/run/agentbox/ca.pem") {
			t.Errorf("TrustEnv lacks %s: %v", k, env)
		}
	}
}

func TestLeakReader(t *testing.T) {
	c := &credential{name: "K", ph: []byte("agentbox-placeholder-K-0123456789abcdef")}
	other := &credential{name: "L", ph: []byte("agentbox-placeholder-L-fedcba9876543210")}
	big := bytes.Repeat([]byte("x"), 3*leakBufSize+7)
	at := func(i int, ph []byte) []byte { return slices.Concat(big[:i], ph, big[i:]) }
	for _, tc := range []struct {
		name string
		data []byte
		leak *credential
	}{
		{"clean", big, nil},
		{"start", at(0, c.ph), c},
		{"end", at(len(big), other.ph), other},
		{"across the buffer edge", at(leakBufSize-5, c.ph), c},
		{"prefix only", at(100, c.ph[:len(c.ph)-1]), nil},
		{"empty", nil, nil},
	} {
		for _, chunk := range []int{1, 7, 4096, 1 << 20} {
			for _, pass := range []bool{false, true} {
				lr := newLeakReader(&chunkReader{b: tc.data, n: chunk}, []*credential{c, other})
				lr.pass = pass
				out, err := io.ReadAll(lr)
				if tc.leak == nil {
					if err != nil || !bytes.Equal(out, tc.data) {
						t.Fatalf("%s/%d/%v: %v, %d of %d bytes", tc.name, chunk, pass, err, len(out), len(tc.data))
					}
					continue
				}
				if !errors.Is(err, errPlaceholder) || lr.leak != tc.leak {
					t.Fatalf("%s/%d/%v: err %v leak %v", tc.name, chunk, pass, err, lr.leak)
				}
				if !pass && bytes.Contains(out, tc.leak.ph[:1+len(tc.leak.ph)/2]) {
					t.Fatalf("%s/%d: part of the placeholder was passed on", tc.name, chunk)
				}
				// Passing on, all before the placeholder goes, and never the
				// whole placeholder.
				if i := bytes.Index(tc.data, tc.leak.ph); pass && (!bytes.HasPrefix(tc.data, out) || len(out) < i || len(out) >= i+len(tc.leak.ph)) {
					t.Fatalf("%s/%d/pass: passed on %d bytes, the placeholder at %d", tc.name, chunk, len(out), i)
				}
			}
		}
	}
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[k:]
	return k, nil
}

func TestWipeBufWipesWhatItLeaves(t *testing.T) {
	w := newWipeBuf(8)
	w.str("secret!")
	old := w.b[:cap(w.b)]
	w.str(" and more that does not fit")
	if !bytes.Equal(old, make([]byte, len(old))) {
		t.Fatalf("the old array still holds %q", old)
	}
	if string(w.bytes()) != "secret! and more that does not fit" {
		t.Fatalf("content %q", w.bytes())
	}
	w.wipe()
	if full := w.b[:cap(w.b)]; !bytes.Equal(full, make([]byte, len(full))) {
		t.Fatal("wipe left bytes")
	}
}

func TestProviderValue(t *testing.T) {
	p := mapProvider{"TOKEN": "v1"}
	s, err := ProviderValue(p, "TOKEN")(context.Background())
	if err != nil || string(s.Bytes()) != "v1" {
		t.Fatalf("%v %v", s, err)
	}
	if _, err := ProviderValue(p, "NOPE")(context.Background()); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("unknown name: %v", err)
	}
}

type mapProvider map[string]string

func (m mapProvider) Credential(_ context.Context, name string) (vault.Secret, error) {
	v, ok := m[name]
	if !ok {
		return vault.Secret{}, vault.ErrNotFound
	}
	return vault.NewSecret([]byte(v)), nil
}

// TestInterceptIPTarget binds a credential to an IP literal: the leaf
// carries the address.
func TestInterceptIPTarget(t *testing.T) {
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, "192.0.2.10")
		c.Credentials[0].Hosts = []string{"192.0.2.10"}
	})
	e.routeTLSNames(t, addrAPI, "api.test", "192.0.2.10")
	resp, _ := do(t, e.client("http"), "GET", "https://192.0.2.10/", map[string]string{"Authorization": "Bearer " + e.ph["API_KEY"]}, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := resp.TLS.PeerCertificates[0].IPAddresses; len(got) != 1 || !got[0].Equal(net.ParseIP("192.0.2.10")) {
		t.Errorf("leaf addresses %v", got)
	}
	if e.up["api.test"].all()[0].Header.Get("Authorization") != "Bearer "+apiValue {
		t.Error("not injected")
	}
}
