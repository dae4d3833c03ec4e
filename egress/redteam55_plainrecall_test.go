package egress

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// TestRedteam55StoredEchoOverPlainHTTP: "Echoes of a credential are
// masked, once its value went out, in every response from a host it is
// bound to, on any connection" (README, known limits; relay.recall). A
// credential's Hosts "api.example.com" means ports 80 and 443
// (egress.Credential), and the policy that allows the host allows both.
// The recall covers intercepted tunnels only: a plain-HTTP request to the
// very host the value is bound to, on port 80, is answered with no mask
// at all, both as an absolute-URI request to the proxy (forward) and in
// a CONNECT tunnel to port 80 (relayPlain). An upstream that stores a
// request's headers (the threat round 52 fixed for HTTPS) and also
// answers on port 80 hands the value back in the clear.
//
// Attack: HTTPS: GET /login with "Authorization: Bearer PLACEHOLDER" (the
// value is injected and stored); then plain HTTP, no placeholder:
// "GET http://HOST/debug/last-request" to the proxy, and the same in
// "CONNECT HOST:80".
//
// Why it works: egress/forward.go:(*connHandler).forward copies the
// response as it is (it only checks the request for placeholders,
// plainLeak); egress/intercept.go:(*Proxy).relayPlain builds a relay with
// r.bound nil (only r.others), so egress/relay.go:(*relay).recall, which
// walks r.bound, adds nothing and mask.active() is false.
//
// Severity: high (the credential's plaintext reaches the sandbox), given
// a bound upstream that stores headers and serves port 80, as round 52's
// fix assumes for port 443. The same question over HTTPS is masked (the
// control).
//
// Found by red-team round 55. Fixed: egress/forward.go (maskPlain) and
// intercept.go (relayPlain's echoes): plain HTTP to a bound host is masked.
func TestRedteam55StoredEchoOverPlainHTTP(t *testing.T) {
	const (
		host  = "plainstore.test"
		addr  = "203.0.113.58"
		value = "sk-live-55PLAINabcdef0123456789xyz"
	)
	var (
		mu   sync.Mutex
		last string
	)
	handler := func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			mu.Lock()
			last = r.Header.Get("Authorization")
			mu.Unlock()
			_, _ = io.WriteString(w, "ok\n")
		case "/debug/last-request":
			mu.Lock()
			v := last
			mu.Unlock()
			fmt.Fprintf(w, "%t %s: authorization=%s\n", r.TLS != nil, r.Host, v)
		}
	}
	e, ph, got := rt52aEchoEnv(t, host, addr, value, handler)
	// The same service answers on port 80.
	plain := httptest.NewServer(http.HandlerFunc(handler))
	plain.Config.ErrorLog = quietLog
	t.Cleanup(plain.Close)
	e.h.dial.route(ap(netip.MustParseAddr(addr), 80), plain.Listener.Addr().String())

	if resp, body, _ := doRaw(t, e, host, "/login", map[string]string{"Authorization": "Bearer " + ph}); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("login: %d %q", resp.StatusCode, body)
	}
	if g := got(); len(g) != 1 || g[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}

	// Control: over HTTPS, on another tunnel, the stored value is masked.
	if _, body, _ := doRaw(t, e, host, "/debug/last-request", nil); strings.Contains(body, value) || !strings.Contains(body, strings.Repeat("*", len(value))) {
		t.Fatalf("control: HTTPS: %q", body)
	}

	// Plain HTTP, absolute URI to the proxy.
	c := mustDialProxy(t, e.h.addr)
	defer c.Close()
	fmt.Fprintf(c, "GET http://%s/debug/last-request HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "false "+host) {
		t.Fatalf("premise: plain HTTP to the bound host: %d %q", resp.StatusCode, b)
	}
	if strings.Contains(string(b), value) {
		t.Errorf("the sandbox read the credential's value over plain HTTP (absolute URI) from the host it is bound to: %q", b)
	}

	// Plain HTTP in a CONNECT tunnel to port 80.
	tc := mustDialProxy(t, e.h.addr)
	defer tc.Close()
	fmt.Fprintf(tc, "CONNECT %s:80 HTTP/1.1\r\nHost: %s:80\r\n\r\n", host, host)
	br := bufio.NewReader(tc)
	if r, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || r.StatusCode != 200 {
		t.Fatalf("CONNECT %s:80: %v %v", host, r, err)
	}
	fmt.Fprintf(tc, "GET /debug/last-request HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	resp, err = http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "false "+host) {
		t.Fatalf("premise: plain HTTP in a tunnel to the bound host: %d %q", resp.StatusCode, b)
	}
	if strings.Contains(string(b), value) {
		t.Errorf("the sandbox read the credential's value over plain HTTP (CONNECT :80) from the host it is bound to: %q", b)
	}
}
