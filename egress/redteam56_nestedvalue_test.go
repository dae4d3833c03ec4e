package egress

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

// TestRedteam56NestedValuesUnmaskOuter: the mask replaces each value it
// holds, one after the other, in the same bytes
// (egress/echo.go:(*echoMask).maskAfter: `for i, v := range m.values`).
// When one credential's value is part of another's (a client ID and the
// "id:secret" pair some APIs take, a key ID and key ID + secret, a token
// and the same token with a suffix), and the shorter comes first in the
// mask, it is starred inside the longer's echo, the longer no longer
// matches, and the rest of the longer value — the secret part — reaches
// the sandbox in the clear. Which comes first is the order of
// Config.Credentials (relay.recall walks the bound credentials in it) or
// of the request's headers: nothing the user is told matters.
//
// Attack: credentials CLIENT_ID = "cid-…" and CLIENT_PAIR = "cid-…:secret",
// both bound to HOST, CLIENT_ID listed first; each injected once (GET
// /login, Authorization: Bearer PLACEHOLDER); the host shows the last
// Authorization it stored; the sandbox reads "Bearer ****…:secret".
//
// Why it works: egress/echo.go:(*echoMask).maskAfter masks value by
// value in the order of m.values; a later value whose bytes were starred
// by an earlier one is not found (formMatcher matches the value's bytes
// or their escapes, never '*'), so its bytes outside the earlier value
// are left as they are.
//
// Severity: medium (part of a credential — here the whole secret half —
// reaches the sandbox), for credentials one of which contains another,
// bound to a host that repeats what it stored. The CLIENT_ID echo alone
// is masked (the control).
//
// Found by red-team round 56. Fixed: egress/echo.go (maskAfter finds every value in the bytes as
// they came before it masks any).
func TestRedteam56NestedValuesUnmaskOuter(t *testing.T) {
	const (
		host   = "rt56b-nested.test"
		id     = "cid-56nested0123456789"
		secret = "s3cr3t-56NESTEDabcdefXYZ"
		pair   = id + ":" + secret
	)
	a := netip.MustParseAddr("203.0.113.168")
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
	phID, _ := NewPlaceholder("CLIENT_ID")
	phPair, _ := NewPlaceholder("CLIENT_PAIR")
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, host)
		c.Credentials = append(c.Credentials,
			Credential{Name: "CLIENT_ID", Placeholder: phID, Hosts: []string{host},
				Value: func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(id)), nil }},
			Credential{Name: "CLIENT_PAIR", Placeholder: phPair, Hosts: []string{host},
				Value: func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(pair)), nil }})
	})
	e.h.res.set(host, a)
	e.serveTLS(t, a, 443, handler, host)

	login := func(ph string) {
		t.Helper()
		if resp, body, _ := doRaw(t, e, host, "/login", map[string]string{"Authorization": "Bearer " + ph}); resp.StatusCode != 200 || body != "ok\n" {
			t.Fatalf("login: %d %q", resp.StatusCode, body)
		}
	}
	login(phID)
	// Control: the ID's echo is masked.
	if _, body, _ := doRaw(t, e, host, "/debug/last-request", nil); strings.Contains(body, id) || !strings.Contains(body, strings.Repeat("*", len(id))) {
		t.Fatalf("control: the ID's echo: %q", body)
	}
	login(phPair)
	g := auth.got()
	if len(g) != 2 || g[0] != "Bearer "+id || g[1] != "Bearer "+pair {
		t.Fatalf("premise: the upstream did not get the injected values: %q", g)
	}
	_, body, _ := doRaw(t, e, host, "/debug/last-request", nil)
	if !strings.HasPrefix(body, "authorization=Bearer ") {
		t.Fatalf("premise: %q", body)
	}
	if strings.Contains(body, secret) {
		t.Errorf("the sandbox read the secret part of CLIENT_PAIR, its ID part masked as CLIENT_ID: %q", body)
	}
}
