package egress

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"sync"
	"time"
)

// maxLeaves bounds the leaf certificates a CA keeps; beyond it the cache
// starts over.
const maxLeaves = 1024

// clockSlack back-dates certificates a little.
const clockSlack = 5 * time.Minute

// ca is a proxy's own certificate authority for intercepted tunnels. Its
// key is generated in memory, is never encoded or exported, and dies with
// the Proxy. The certificate is valid for a short time and, where the bound
// hosts allow it, carries name constraints so that it can vouch for those
// hosts only.
type ca struct {
	cert     *x509.Certificate
	certPEM  []byte
	key      *ecdsa.PrivateKey
	leafKey  *ecdsa.PrivateKey // one key for every leaf of this CA
	notAfter time.Time

	mu     sync.Mutex
	leaves map[string]*tls.Certificate
}

// newCA creates a CA valid for validity whose name constraints permit the
// hosts of bound (subdomains of an exact name included, which X.509 cannot
// exclude). Every pattern must name hosts (no "*").
func newCA(validity time.Duration, bound []Pattern) (*ca, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the CA key: %w", err)
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the leaf key: %w", err)
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "agentbox egress CA " + hex.EncodeToString(serial.Bytes()[:6]), Organization: []string{"agentbox"}},
		NotBefore:             now.Add(-clockSlack),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	constrain(tmpl, bound)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("creating the CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing the CA certificate: %w", err)
	}
	return &ca{
		cert:     cert,
		certPEM:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		key:      key,
		leafKey:  leafKey,
		notAfter: cert.NotAfter,
		leaves:   make(map[string]*tls.Certificate),
	}, nil
}

// constrain sets name constraints that permit exactly the names and
// addresses of bound: "a.example" permits a.example (and, as X.509 has it,
// its subdomains), "*.example" permits the subdomains of example, an IP
// pattern that address. A kind without patterns is shut: DNS names through
// the reserved name "invalid", addresses by excluding every range.
func constrain(tmpl *x509.Certificate, bound []Pattern) {
	seen := map[string]bool{}
	for _, p := range bound {
		switch p.kind {
		case kindExact, kindSuffix:
			d := p.host
			if p.kind == kindSuffix {
				d = "." + d
			}
			if !seen[d] {
				seen[d] = true
				tmpl.PermittedDNSDomains = append(tmpl.PermittedDNSDomains, d)
			}
		case kindIP:
			bits := p.ip.BitLen()
			n := &net.IPNet{IP: p.ip.AsSlice(), Mask: net.CIDRMask(bits, bits)}
			if !seen[n.String()] {
				seen[n.String()] = true
				tmpl.PermittedIPRanges = append(tmpl.PermittedIPRanges, n)
			}
		}
	}
	if len(tmpl.PermittedDNSDomains) == 0 {
		tmpl.PermittedDNSDomains = []string{"invalid"}
	}
	if len(tmpl.PermittedIPRanges) == 0 {
		tmpl.ExcludedIPRanges = []*net.IPNet{
			{IP: net.IPv4zero.To4(), Mask: net.CIDRMask(0, 32)},
			{IP: net.IPv6zero, Mask: net.CIDRMask(0, 128)},
		}
	}
	tmpl.PermittedDNSDomainsCritical = true
}

func randomSerial() (*big.Int, error) {
	s, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("certificate serial: %w", err)
	}
	return s.Add(s, big.NewInt(1)), nil
}

// leafFor returns a server certificate for t signed by the CA, cached.
func (c *ca) leafFor(t target) (*tls.Certificate, error) {
	host := t.host()
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.leaves[host]; ok {
		return l, nil
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    time.Now().Add(-clockSlack),
		NotAfter:     c.notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if t.isIP() {
		tmpl.IPAddresses = []net.IP{t.ip.AsSlice()}
	} else {
		tmpl.DNSNames = []string{t.name}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, &c.leafKey.PublicKey, c.key)
	if err != nil {
		return nil, fmt.Errorf("issuing a certificate for %s: %w", host, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing the certificate for %s: %w", host, err)
	}
	if len(c.leaves) >= maxLeaves {
		clear(c.leaves)
	}
	l := &tls.Certificate{Certificate: [][]byte{der, c.cert.Raw}, PrivateKey: c.leafKey, Leaf: leaf}
	c.leaves[host] = l
	return l, nil
}
