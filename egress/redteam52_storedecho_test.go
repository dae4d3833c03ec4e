package egress

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestRedteam52StoredEchoOtherConnection: "Wherever the response to a
// request repeats an injected value, it is masked" (egress.Credential).
// The mask holds the values injected on one upstream connection and
// masks them in the responses that connection brings (echo.go,
// echoMask: "for the connection's life"), so a response that repeats the
// value an earlier request carried is masked, but only when it comes back
// on the same tunnel. A tunnel that injects nothing has no mask at all
// (relay.exchange masks only when mask.active()). An upstream that keeps
// what it was sent and shows it later (a request log or inspector, a
// "last request" debug endpoint, an API gateway's trace, an error page
// cached per client) hands the value to the sandbox on the next
// connection in the clear: the sandbox sends the placeholder once on one
// tunnel, closes it, opens another and asks for the stored request.
//
// Attack: tunnel 1: GET /login with "Authorization: Bearer PLACEHOLDER"
// (injected); tunnel 2, to the same host, without any placeholder: GET
// /debug/last-request; the JSON answer holds the value unmasked.
//
// Why it works: egress/relay.go:(*relay).exchange masks with r.sent,
// the relay's own echoMask, filled by buildHead from this tunnel's
// requests only; egress/echo.go:(*echoMask).active is false on a tunnel
// that injected nothing, and maskResponse is never called.
//
// Severity: high (the credential's plaintext reaches the sandbox), given
// a bound upstream that stores the request's headers and repeats them
// on request; the same response on the same tunnel is masked (the
// control), so the proxy means to cover a repeat that comes later.
//
// Found by red-team round 52.
// Fixed: once a credential's value went out, every response from a host it
// is bound to is masked for it, on any connection (relay.recall).
func TestRedteam52StoredEchoOtherConnection(t *testing.T) {
	const (
		host  = "stored.test"
		value = "sk-live-51HxQ2eLkdIXQdZ3aV9pM7s"
	)
	var (
		mu   sync.Mutex
		last string
	)
	e, ph, got := rt52aEchoEnv(t, host, "203.0.113.55", value, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			mu.Lock()
			last = r.Header.Get("Authorization")
			mu.Unlock()
			_, _ = io.WriteString(w, "ok\n")
		case "/debug/last-request":
			mu.Lock()
			b, _ := json.Marshal(map[string]string{"authorization": last})
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(b)
		}
	})
	hdr := map[string]string{"Authorization": "Bearer " + ph}

	// Control: the stored value asked for on the tunnel that sent it is
	// masked.
	tc, br := e.interceptedConn(t, host+":443")
	for _, path := range []string{"/login", "/debug/last-request"} {
		fmt.Fprintf(tc, "GET %s HTTP/1.1\r\nHost: %s\r\n", path, host)
		if path == "/login" {
			fmt.Fprintf(tc, "Authorization: %s\r\n", hdr["Authorization"])
		}
		fmt.Fprint(tc, "\r\n")
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if path == "/debug/last-request" {
			if resp.StatusCode != 200 || strings.Contains(string(body), value) || !strings.Contains(string(body), strings.Repeat("*", len(value))) {
				t.Fatalf("control: the same tunnel: status %d, body %q", resp.StatusCode, body)
			}
		}
	}
	_ = tc.Close()
	if g := got(); len(g) != 2 || g[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}

	// The attack: the placeholder on one tunnel, the question on another.
	if resp, body, _ := doRaw(t, e, host, "/login", hdr); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("login: %d %q", resp.StatusCode, body)
	}
	resp, body, _ := doRaw(t, e, host, "/debug/last-request", nil)
	var m map[string]string
	if err := json.Unmarshal([]byte(body), &m); err == nil && strings.Contains(m["authorization"], value) {
		t.Errorf("the sandbox read the credential's value %q on a second tunnel (status %d, body %q): the mask covers only the tunnel that injected it",
			m["authorization"], resp.StatusCode, body)
	}
}
