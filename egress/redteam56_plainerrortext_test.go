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

// TestRedteam56PlainForwardErrorQuotesEcho: "Echoes of a credential are
// masked, once its value went out, in every response from a host it is
// bound to, ... over HTTPS and plain HTTP alike" (README, known limits;
// round 55's maskPlain). An upstream response the proxy cannot parse is
// refused with the parser's error, and Go's parser quotes the offending
// line ("malformed HTTP response \"...\""): in an intercepted tunnel the
// relay withholds that text once a value may be in it
// (TestEchoInUnreadableResponseMasked, relay.exchange: "the upstream's
// text is withheld"). The plain-HTTP forward path (an absolute-URI
// request to the proxy) never withholds it: the 502's body quotes the
// upstream's bytes, the stored value in them, in the clear.
//
// Attack: HTTPS: GET /login with "Authorization: Bearer PLACEHOLDER" (the
// value is injected and stored by the bound host); then, no placeholder,
// "GET http://HOST/debug/malformed" to the proxy: the bound host's plain
// side answers with a status line that repeats what it stored; the
// proxy's 502 quotes it.
//
// Why it works: egress/forward.go:(*connHandler).forward: when
// h.roundTrip fails it answers h.writeError(502, "", "agentbox egress:
// "+err.Error()) whatever echoesOf returned; maskPlain, which masks the
// head and body, is reached only for a response that parsed.
//
// Severity: high (the credential's plaintext reaches the sandbox), in the
// threat model TestEchoInUnreadableResponseMasked and round 55's plain
// HTTP fix set (a bound upstream that stores and repeats a request's
// headers, also on port 80). The same malformed answer over HTTPS, and
// a well-formed one over plain HTTP, are masked (the controls).
//
// Found by red-team round 56. Fixed: egress/forward.go (the upstream's text is withheld on a
// connection to a host credentials are bound to).
func TestRedteam56PlainForwardErrorQuotesEcho(t *testing.T) {
	const (
		host  = "rt56b-plainerr.test"
		addr  = "203.0.113.161"
		value = "sk-live-56PLAINERRabcdef0123456789"
	)
	var (
		mu   sync.Mutex
		last string
	)
	handler := func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		v := last
		mu.Unlock()
		switch r.URL.Path {
		case "/login":
			mu.Lock()
			last = r.Header.Get("Authorization")
			mu.Unlock()
			_, _ = io.WriteString(w, "ok\n")
		case "/debug/last-request":
			fmt.Fprintf(w, "authorization=%s\n", v)
		case "/debug/malformed":
			conn, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			fmt.Fprintf(brw, "HTTP/1.1 %s\r\n\r\n", strings.ReplaceAll(v, " ", "-"))
			_ = brw.Flush()
		}
	}
	e, ph, got := rt52aEchoEnv(t, host, addr, value, handler)
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

	// Control: the malformed answer over HTTPS is refused with its text
	// withheld.
	if resp, body, _ := doRaw(t, e, host, "/debug/malformed", nil); resp.StatusCode != http.StatusBadGateway || strings.Contains(body, value) {
		t.Fatalf("control: HTTPS malformed: %d %q", resp.StatusCode, body)
	}

	plainGet := func(path string) (int, string) {
		t.Helper()
		c := mustDialProxy(t, e.h.addr)
		defer c.Close()
		fmt.Fprintf(c, "GET http://%s%s HTTP/1.1\r\nHost: %s\r\n\r\n", host, path, host)
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "GET"})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// Control: a well-formed plain answer is masked.
	if st, body := plainGet("/debug/last-request"); st != 200 || strings.Contains(body, value) || !strings.Contains(body, strings.Repeat("*", len(value))) {
		t.Fatalf("control: plain well-formed: %d %q", st, body)
	}

	st, body := plainGet("/debug/malformed")
	if st != http.StatusBadGateway {
		t.Fatalf("premise: the malformed plain answer was not refused: %d %q", st, body)
	}
	if strings.Contains(body, value) {
		t.Errorf("the sandbox read the credential's value in the proxy's refusal of a malformed plain-HTTP answer: %q", body)
	}
}
