package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

// Once a credential's value went out, a response from a host it is bound
// to is checked for it on every connection (relay.recall); where the value
// cannot be fetched for that, the request is refused, not let through
// unchecked.
func TestRecallFailsClosed(t *testing.T) {
	const host = "recall.test"
	addr := netip.MustParseAddr("203.0.113.56")
	ph, err := NewPlaceholder("RECALL_KEY")
	if err != nil {
		t.Fatal(err)
	}
	var fetches atomic.Int32
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, host)
		c.Credentials = append(c.Credentials, Credential{Name: "RECALL_KEY", Placeholder: ph, Hosts: []string{host},
			Value: func(context.Context) (vault.Secret, error) {
				if fetches.Add(1) > 1 {
					return vault.Secret{}, errors.New("the vault is locked")
				}
				return vault.NewSecret([]byte("recall-secret-value")), nil
			}})
	})
	e.h.res.mu.Lock()
	e.h.res.answers[host] = []netip.Addr{addr}
	e.h.res.mu.Unlock()
	var requests atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		_, _ = w.Write([]byte("ok\n"))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{e.root.issue(t, host)}}
	srv.Config.ErrorLog = quietLog
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e.h.dial.route(ap(addr, 443), srv.Listener.Addr().String())

	// Control: the request that carries the value goes through.
	if resp, body, _ := doRaw(t, e, host, "/", map[string]string{"Authorization": "Bearer " + ph}); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("control: %d %q", resp.StatusCode, body)
	}
	// Another tunnel, no placeholder: its response must be checked for the
	// value, which cannot be fetched now.
	resp, body, _ := doRaw(t, e, host, "/", nil)
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Agentbox-Deny") != RuleCredentialError {
		t.Fatalf("unchecked response let through: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("the upstream got %d requests, want 1 (the refused one must not be sent)", n)
	}
}
