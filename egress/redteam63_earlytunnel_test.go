package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/vault"
)

// TestRedteam63TunnelOpenedBeforeTheValueWent: round 62 has a tunnel to
// the address a credential's value went to (by an IP literal, or another
// name of it) intercepted and masked like the bound host's own. The
// choice is made when a tunnel opens. A tunnel to the bound host's
// address opened before any value went there is spliced, TLS end to end
// between the command and the host, and stays so: after the command has
// the value injected by name on another tunnel (stored by the host), the
// early tunnel reads it back in the clear.
//
// Control: the same question on a tunnel opened after the value went is
// masked (round 62's fix), and the early tunnel works before the login.
//
// Severity: high (the credential's plaintext reaches the sandbox), in the
// threat model of rounds 52–62 (a bound host that shows a stored request
// header back).
//
// Found by a review of round 62's fix (red-team round 63). Fixed: the
// tunnels are kept by address while they run, and when a value first goes
// to an address, before it is sent, those to it that do not mask it are
// ended (earlytunnels.go): the early tunnel's second request fails.
func TestRedteam63TunnelOpenedBeforeTheValueWent(t *testing.T) {
	const (
		host  = "rt63e-early.test"
		value = "sk-live-63EARLYabcdef0123456789abcd"
	)
	a := netip.MustParseAddr("203.0.113.164")
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
	ph, err := NewPlaceholder("RT63E_KEY")
	if err != nil {
		t.Fatal(err)
	}
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, host, a.String())
		c.Credentials = append(c.Credentials, Credential{Name: "RT63E_KEY", Placeholder: ph, Hosts: []string{host},
			Value: func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(value)), nil }})
	})
	e.h.res.set(host, a)
	e.serveTLS(t, a, 443, handler, host)

	// The early tunnel: by the address, before any value went there.
	c := mustDialProxy(t, e.h.addr)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	target := a.String() + ":443"
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	cresp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || cresp.StatusCode != 200 {
		t.Fatalf("premise: CONNECT %s: %v %v", target, cresp, err)
	}
	tc := tls.Client(&rt62cBufConn{Conn: c, r: br}, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
	defer tc.Close()
	tbr := bufio.NewReader(tc)
	get := func() (string, error) {
		fmt.Fprintf(tc, "GET /debug/last-request HTTP/1.1\r\nHost: %s\r\n\r\n", host)
		resp, err := http.ReadResponse(tbr, &http.Request{Method: "GET"})
		if err != nil {
			return "", err
		}
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if b, err := get(); err != nil || b != "authorization=\n" {
		t.Fatalf("control: the early tunnel before the login: %q %v", b, err)
	}

	// The value goes to the host, by name, on another tunnel.
	if resp, body, _ := doRaw(t, e, host, "/login", map[string]string{"Authorization": "Bearer " + ph}); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("login: %d %q", resp.StatusCode, body)
	}
	if g := auth.got(); len(g) != 1 || g[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}
	// Control: a tunnel to the address opened now is masked (or refused).
	if b := rt62cSplicedGet(t, e, target, "", host, "/debug/last-request"); strings.Contains(b, value) {
		t.Fatalf("control: a tunnel opened after the value went: %q", b)
	}

	// The attack: the same question on the early tunnel (ended, fixed).
	b, err := get()
	if err == nil && !strings.HasPrefix(b, "authorization=") {
		t.Fatalf("premise: the early tunnel after the login: %q", b)
	}
	if strings.Contains(b, value) {
		t.Errorf("LEAK: the tunnel to %s opened before the value went there read it back: %q", target, b)
	}
}
