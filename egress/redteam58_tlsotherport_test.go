package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

// TestRedteam58StoredEchoOverTLSOnAnotherPort: "Echoes of a credential
// are masked, once its value went out, in every response from a host it
// is bound to (on any of its ports), on any connection ... over HTTPS and
// plain HTTP alike" (README, known limits; rounds 52, 55 and 56). Round 56
// made credSet.echoes name every port of the host, but that only reaches
// the connections the proxy reads: plain HTTP (forward, relayPlain) and
// the tunnels it intercepts. Whether a tunnel is intercepted is decided by
// the credential's binding, which is port by port (credSet.intercepts →
// credential.binds → patternIndex.lookup): a TLS tunnel to the bound
// host on a port the credential does not name (a GitLab's registry on
// :5050, a Kubernetes API on :6443, an admin or debug console on :8443,
// all of which a policy entry "HOST:*" allows) is spliced, never looked
// into, and a response there that repeats the stored value reaches the
// sandbox in the clear.
//
// Attack: credential bound to HOST (ports 80 and 443), policy Allowed
// ["HOST", "HOST:8443"]. Tunnel 1: CONNECT HOST:443, GET /login with
// "Authorization: Bearer PLACEHOLDER" (injected, stored by the host).
// Tunnel 2: CONNECT HOST:8443, TLS straight to the host (the sandbox
// does not need the proxy's CA there: the tunnel is spliced), GET
// /debug/last-request: the value comes back unmasked.
//
// Why it works: egress/tunnel.go:(*Proxy).tunnelFor intercepts only when
// p.creds.intercepts(tgt), i.e. some credential binds tgt's host AND
// port; every other tunnel goes to spliceTunnel (runTunnel with intercept
// false → spliceTLS), so p.creds.echoes(tgt), which names the host on any
// port, is never consulted for TLS tunnels, and no lateMask or mask
// reader is put on the stream.
//
// Severity: high (the credential's plaintext reaches the sandbox), in the
// threat model rounds 52, 55 and 56 set (a bound host that stores a
// request's headers and shows them on another connection): round 56 fixed
// exactly this for the host's plain-HTTP side. The same question on port
// 443 is masked (the control).
//
// A fix: intercept a TLS tunnel to every port of a host a credential
// names (credSet.echoes non-empty), injecting only where it is bound and
// masking everywhere; or refuse TLS tunnels to a bound host's other ports
// once a value went out.
//
// Found by red-team round 58. Fixed: egress/tunnel.go (tunnelFor
// intercepts a TLS tunnel to any port of a host a credential is bound to;
// the value goes only to the bound ports, echoes are masked on all).
func TestRedteam58StoredEchoOverTLSOnAnotherPort(t *testing.T) {
	const (
		host  = "rt58c-otherport.test"
		value = "sk-live-58OTHERPORTabcdef0123456789"
	)
	a := netip.MustParseAddr("203.0.113.181")
	var auth authLog
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			auth.record(r)
			_, _ = io.WriteString(w, "ok\n")
		case "/debug/last-request":
			fmt.Fprintf(w, "port=%s authorization=%s\n", r.Context().Value(rt58cPortKey{}), auth.last())
		}
	})
	ph, err := NewPlaceholder("RT58C_KEY")
	if err != nil {
		t.Fatal(err)
	}
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, host, host+":8443")
		c.Credentials = append(c.Credentials, Credential{Name: "RT58C_KEY", Placeholder: ph, Hosts: []string{host},
			Value: func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(value)), nil }})
	})
	e.h.res.set(host, a)
	// One service, the same host's certificate, on 443 and 8443.
	for _, port := range []uint16{443, 8443} {
		srv := httptest.NewUnstartedServer(handler)
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{e.root.issue(t, host)}}
		srv.Config.ErrorLog = quietLog
		p := fmt.Sprint(port)
		srv.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
			return context.WithValue(ctx, rt58cPortKey{}, p)
		}
		srv.StartTLS()
		t.Cleanup(srv.Close)
		e.h.dial.route(ap(a, port), srv.Listener.Addr().String())
	}

	if resp, body, _ := doRaw(t, e, host, "/login", map[string]string{"Authorization": "Bearer " + ph}); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("login: %d %q", resp.StatusCode, body)
	}
	g := auth.got()
	if len(g) != 1 || g[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}
	// Control: on 443, on another tunnel, the stored value is masked.
	if _, body, _ := doRaw(t, e, host, "/debug/last-request", nil); strings.Contains(body, value) || !strings.Contains(body, strings.Repeat("*", len(value))) {
		t.Fatalf("control: HTTPS on 443: %q", body)
	}

	// The attack: the same host, port 8443, which the policy allows.
	c := mustDialProxy(t, e.h.addr)
	defer c.Close()
	target := host + ":8443"
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	cresp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || cresp.StatusCode != 200 {
		t.Fatalf("premise: CONNECT %s: %v %v", target, cresp, err)
	}
	tc := tls.Client(&rt58cBufConn{Conn: c, r: br}, &tls.Config{ServerName: host, RootCAs: e.clientCA, NextProtos: []string{"http/1.1"}})
	if err := tc.Handshake(); err != nil {
		t.Fatalf("premise: TLS through the tunnel to %s: %v", target, err)
	}
	defer tc.Close()
	if iss := tc.ConnectionState().PeerCertificates[0].Issuer.CommonName; iss != e.root.cert.Subject.CommonName {
		t.Logf("the tunnel to %s is intercepted (issuer %q)", target, iss)
	}
	fmt.Fprintf(tc, "GET /debug/last-request HTTP/1.1\r\nHost: %s\r\n\r\n", target)
	resp, err := http.ReadResponse(bufio.NewReader(tc), &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "port=8443 authorization=") {
		t.Fatalf("premise: HTTPS to the bound host's port 8443: %d %q", resp.StatusCode, b)
	}
	if strings.Contains(string(b), value) {
		t.Errorf("the sandbox read the credential's value over HTTPS from the host it is bound to, on port 8443: %q", b)
	}
}

type rt58cPortKey struct{}

// rt58cBufConn reads what a bufio.Reader holds before the connection.
type rt58cBufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *rt58cBufConn) Read(b []byte) (int, error) { return c.r.Read(b) }
