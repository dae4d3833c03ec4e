package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/vault"
)

// TestRedteam62StoredEchoThroughIPLiteral: a credential bound to HOST is
// masked in every response from HOST once its value went out (README,
// known limits: "on any of its ports, on any connection"). The same
// server reached by its address instead of its name — a tunnel to HOST's
// own IP literal, which a policy allowing "*" (or the address) allows —
// is spliced, and a response there that repeats the stored value reaches
// the sandbox in the clear.
//
// Attack: credential bound to HOST, HOST resolves to A, policy Allowed
// ["HOST", "A"]. Tunnel 1: CONNECT HOST:443, GET /login with
// "Authorization: Bearer PLACEHOLDER" (injected, stored). Tunnel 2:
// CONNECT A:443 (the address the proxy itself resolved HOST to and
// connected to for tunnel 1), TLS without SNI and without checking the
// certificate (the sandbox needs no trust: the tunnel is spliced), GET
// /debug/last-request with "Host: HOST": the value comes back unmasked.
// The same through another allowed name that resolves to A (ALIAS, TLS
// with SNI ALIAS: not fronted, the hello names the tunnel's host).
//
// Why it works: egress/credentials.go:(*credSet).echoes (and intercepts)
// match a tunnel's target by host name only; egress/tunnel.go:tunnelFor
// splices a tunnel to an IP literal that is the bound host's own address.
// The proxy knows the addresses it resolved the bound host to (it dialled
// them), but never treats a tunnel to one as a tunnel to the bound host.
// The injection itself holds (the placeholder toward A is refused); only
// the echo mask is bypassed.
//
// Severity: high (the credential's plaintext reaches the sandbox) in the
// threat model of rounds 52–58 (a bound host that stores a request's
// headers and shows them on another connection); the README's limit "a
// host it is not bound to that shows what another stored" may be read to
// cover it, but here it is the same host, the very address the value was
// sent to. Control: the same question to HOST by name is masked.
//
// Found by red-team round 62. Fixed: the proxy records the
// addresses a value went to (injectedFlag.storeTo, in the shared record
// too), and credSet.echoes counts a target at such an address as the
// bound host: its tunnels are intercepted and masked.
func TestRedteam62StoredEchoThroughIPLiteral(t *testing.T) {
	const (
		host  = "rt62c-ipliteral.test"
		value = "sk-live-62IPLITERALabcdef0123456789"
		alias = "rt62c-alias.test" // another name of the same address
	)
	a := netip.MustParseAddr("203.0.113.163")
	var auth authLog
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			auth.record(r)
			_, _ = io.WriteString(w, "ok\n")
		case "/debug/last-request":
			fmt.Fprintf(w, "authorization=%s\n", auth.last())
		}
	})
	ph, err := NewPlaceholder("RT62D_KEY")
	if err != nil {
		t.Fatal(err)
	}
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, host, a.String(), alias)
		c.Credentials = append(c.Credentials, Credential{Name: "RT62D_KEY", Placeholder: ph, Hosts: []string{host},
			Value: func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(value)), nil }})
	})
	e.h.res.set(host, a)
	e.h.res.set(alias, a)
	e.serveTLS(t, a, 443, handler, host)

	if resp, body, _ := doRaw(t, e, host, "/login", map[string]string{"Authorization": "Bearer " + ph}); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("login: %d %q", resp.StatusCode, body)
	}
	g := auth.got()
	if len(g) != 1 || g[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}
	// Control: by name, on another tunnel, the stored value is masked.
	if _, body, _ := doRaw(t, e, host, "/debug/last-request", nil); strings.Contains(body, value) || !strings.Contains(body, strings.Repeat("*", len(value))) {
		t.Fatalf("control: HTTPS to %s by name: %q", host, body)
	}

	// The attack: the same server by its address, and by another name
	// that resolves to that address.
	for _, tc := range []struct{ target, sni string }{
		{a.String() + ":443", ""},
		{alias + ":443", alias},
	} {
		b := rt62cSplicedGet(t, e, tc.target, tc.sni, host, "/debug/last-request")
		// Fixed, the tunnel is intercepted: the answer comes masked, or
		// is refused where the upstream's certificate does not name the
		// target (the address, the other name).
		if !strings.HasPrefix(b, "authorization=") && !strings.Contains(b, "agentbox egress:") {
			t.Fatalf("premise: HTTPS to %s: %q", tc.target, b)
		}
		if strings.Contains(b, value) {
			t.Errorf("LEAK: the sandbox read the credential's value from %s, the address of %s it was sent to: %q", tc.target, host, b)
		}
	}
}

// rt62cSplicedGet opens a CONNECT tunnel to target, speaks TLS with sni
// (none if "") without checking the certificate, and returns the body of
// GET path with the Host header host.
func rt62cSplicedGet(t *testing.T, e *credEnv, target, sni, host, path string) string {
	t.Helper()
	c := mustDialProxy(t, e.h.addr)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	cresp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || cresp.StatusCode != 200 {
		t.Fatalf("premise: CONNECT %s: %v %v", target, cresp, err)
	}
	tc := tls.Client(&rt62cBufConn{Conn: c, r: br}, &tls.Config{ServerName: sni, InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
	if err := tc.Handshake(); err != nil {
		t.Fatalf("premise: TLS through the tunnel to %s: %v", target, err)
	}
	defer tc.Close()
	fmt.Fprintf(tc, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, host)
	resp, err := http.ReadResponse(bufio.NewReader(tc), &http.Request{Method: "GET"})
	if err != nil {
		t.Fatalf("premise: response through the tunnel to %s: %v", target, err)
	}
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// rt62cBufConn reads what a bufio.Reader holds before the connection.
type rt62cBufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *rt62cBufConn) Read(b []byte) (int, error) { return c.r.Read(b) }
