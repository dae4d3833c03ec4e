package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

// TestRedteam56PortBoundCredentialPlainEcho: round 55 masked a stored
// value in a bound host's plain-HTTP answers ("over HTTPS and plain HTTP
// alike", README, Echoes of a credential), by the credential's binding
// to the plain target: forward.go's echoesOf and relayPlain call
// creds.split(target), which matches host and port. A credential bound
// to "HOST:443" — the natural way to say "this value goes only over
// HTTPS" — is then never bound on port 80, though the policy allows the
// host on both ports (a pattern without a port means 80 and 443) and the
// very same service answers there. The value stored over HTTPS comes back
// in the clear over plain HTTP from the host it is bound to.
//
// Attack: credential Hosts ["HOST:443"], policy Allowed ["HOST"]. HTTPS:
// GET /login with "Authorization: Bearer PLACEHOLDER" (injected, stored);
// then "GET http://HOST/debug/last-request" to the proxy.
//
// Why it works: egress/forward.go:(*connHandler).echoesOf →
// credSet.split(t) → credential.binds(t) → patternIndex.lookup, which
// compares ports: HOST:80 is not bound, echoes is empty, and maskPlain
// returns at once; intercept.go:relayPlain the same for CONNECT HOST:80.
// The same host with a port-less binding is masked (round 55's test).
//
// Severity: high (the credential's plaintext reaches the sandbox), in
// round 55's threat model (a bound upstream that stores headers and
// serves port 80), for a credential bound with an explicit HTTPS port.
// The same question over HTTPS is masked (the control).
//
// Found by red-team round 56. Fixed: egress/credentials.go (credSet.echoes: the credentials naming
// the host on any port).
func TestRedteam56PortBoundCredentialPlainEcho(t *testing.T) {
	const (
		host  = "rt56b-portbound.test"
		value = "sk-live-56PORTBOUNDabcdef0123456789"
	)
	a := netip.MustParseAddr("203.0.113.167")
	var auth authLog
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			auth.record(r)
			_, _ = io.WriteString(w, "ok\n")
		case "/debug/last-request":
			fmt.Fprintf(w, "%t authorization=%s\n", r.TLS != nil, auth.last())
		}
	})
	ph, err := NewPlaceholder("RT56B_KEY")
	if err != nil {
		t.Fatal(err)
	}
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, host)
		c.Credentials = append(c.Credentials, Credential{Name: "RT56B_KEY", Placeholder: ph, Hosts: []string{host + ":443"},
			Value: func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(value)), nil }})
	})
	e.h.res.set(host, a)
	e.serveTLS(t, a, 443, handler, host)
	plain := httptest.NewServer(handler)
	plain.Config.ErrorLog = quietLog
	t.Cleanup(plain.Close)
	e.h.dial.route(ap(a, 80), plain.Listener.Addr().String())

	if resp, body, _ := doRaw(t, e, host, "/login", map[string]string{"Authorization": "Bearer " + ph}); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("login: %d %q", resp.StatusCode, body)
	}
	g := auth.got()
	if len(g) != 1 || g[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}
	// Control: over HTTPS, on another tunnel, the stored value is masked.
	if _, body, _ := doRaw(t, e, host, "/debug/last-request", nil); strings.Contains(body, value) || !strings.Contains(body, strings.Repeat("*", len(value))) {
		t.Fatalf("control: HTTPS: %q", body)
	}

	c := mustDialProxy(t, e.h.addr)
	defer c.Close()
	fmt.Fprintf(c, "GET http://%s/debug/last-request HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "false authorization=") {
		t.Fatalf("premise: plain HTTP to the bound host: %d %q", resp.StatusCode, b)
	}
	if strings.Contains(string(b), value) {
		t.Errorf("the sandbox read the credential's value over plain HTTP from the host it is bound to (on 443): %q", b)
	}
}
