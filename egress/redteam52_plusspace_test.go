package egress

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agentbox-dev/agentbox/vault"
)

// TestRedteam52FormEncodedSpaceEcho: the proxy masks an injected value
// wherever the response repeats it, "also when each byte is written as a
// JSON, JavaScript, URL or HTML escape" (echoforms.go, round 51). The URL
// form it knows is %XX. The form every query string and every HTML form
// body is written in, application/x-www-form-urlencoded, writes a space
// as "+": Go's url.QueryEscape and url.Values.Encode, Python's urlencode
// and quote_plus, PHP's urlencode and http_build_query, Java's
// URLEncoder, .NET's HttpUtility.UrlEncode, JavaScript's URLSearchParams.
// A credential whose value holds a space (the whole Authorization value
// stored in the vault: "token ghp_…", "Bearer sk-…", "SSWS 00…",
// "GenieKey …"; Credential.Value allows it and only trims the ends) comes
// back in a redirect's query string or a form-encoded body as
// "token+ghp_…": no byte of that text spells the value's space, so the
// mask finds nothing, not even the secret half after the space, and the
// sandbox reads the value with one url.ParseQuery. No leak is recorded.
//
// Attack: GET /login-redirect on the bound host with "Authorization:
// PLACEHOLDER"; the upstream redirects to /denied?auth=<QueryEscape of
// the header> (the same redirect TestRedteam50EscapedEchoUnmasked uses)
// or answers a form-encoded body; the sandbox parses the query and has
// the value.
//
// Why it works: egress/echoforms.go:(*formMatcher).forms knows, for a
// byte, the byte itself, \-escapes, %XX and HTML references; "+" is no
// form of ' ' there, so (*echoMask).maskAfter / maskString
// (egress/echo.go) match nothing in "token+ghp_…".
//
// Severity: high (the credential's plaintext reaches the sandbox; any
// value with a space, behind an upstream that repeats the header in a URL
// or form, which is the premise of round 50's redirect case).
//
// Found by red-team round 52.
// Fixed: + is a form of a space (echoforms.go).
func TestRedteam52FormEncodedSpaceEcho(t *testing.T) {
	const (
		host  = "plus.test"
		value = "token ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	)
	e, ph, got := rt52aEchoEnv(t, host, "203.0.113.52", value, func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/echo/plain": // control: the bytes as they came
			fmt.Fprintf(w, `{"authorization":"%s"}`, auth)
		case "/echo/path": // control: %20, a form the mask knows
			http.Redirect(w, r, "/denied/"+url.PathEscape(auth), http.StatusFound)
		case "/login-redirect": // a login/error redirect carrying what it was sent
			http.Redirect(w, r, "/denied?auth="+url.QueryEscape(auth), http.StatusFound)
		case "/echo/form": // a form-encoded answer (OAuth-style endpoints)
			w.Header().Set("Content-Type", "application/x-www-form-urlencoded")
			_, _ = io.WriteString(w, url.Values{"authorization": {auth}}.Encode())
		}
	})
	hdr := map[string]string{"Authorization": ph}

	// Premise: the form-encoded text of the value is "+" for the space,
	// and a URL parser gives the value back from it.
	if enc := url.QueryEscape(value); !strings.Contains(enc, "+") || strings.Contains(enc, "%20") {
		t.Fatalf("premise: QueryEscape(%q) = %q", value, enc)
	}
	if q, err := url.ParseQuery("auth=" + url.QueryEscape(value)); err != nil || q.Get("auth") != value {
		t.Fatalf("premise: ParseQuery does not decode the form: %q %v", q.Get("auth"), err)
	}

	// Controls: a literal echo, and the path-escaped one (%20), are
	// masked, and the upstream got the value.
	resp, body, _ := doRaw(t, e, host, "/echo/plain", hdr)
	if resp.StatusCode != 200 || strings.Contains(body, "ghp_") || !strings.Contains(body, strings.Repeat("*", len(value))) {
		t.Fatalf("control: literal echo: status %d, body %q", resp.StatusCode, body)
	}
	if g := got(); len(g) != 1 || g[0] != value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}
	resp, _, _ = doRaw(t, e, host, "/echo/path", hdr)
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || strings.Contains(loc, "ghp_") {
		t.Fatalf("control: path-escaped echo not masked: %d %q", resp.StatusCode, loc)
	}

	resp, _, _ = doRaw(t, e, host, "/login-redirect", hdr)
	loc := resp.Header.Get("Location")
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("Location %q: %v", loc, err)
	}
	if decoded := u.Query().Get("auth"); decoded == value {
		t.Errorf("the sandbox decoded the credential's value %q from the redirect's query (Location %q): the mask does not know + for a space", decoded, loc)
	}

	resp, body, _ = doRaw(t, e, host, "/echo/form", hdr)
	if q, err := url.ParseQuery(body); err == nil && q.Get("authorization") == value {
		t.Errorf("the sandbox decoded the credential's value %q from the form-encoded body %q (status %d)", q.Get("authorization"), body, resp.StatusCode)
	}
}

// rt52aEchoEnv is a credEnv with one more credential, bound to host
// (resolved to addr) and holding value, whose HTTPS upstream is handler.
// It returns the env, the credential's placeholder and a function that
// lists the Authorization headers the upstream got. opts change the
// proxy's Config further.
func rt52aEchoEnv(t *testing.T, host, addr, value string, handler http.HandlerFunc, opts ...credOption) (*credEnv, string, func() []string) {
	t.Helper()
	a := netip.MustParseAddr(addr)
	ph, err := NewPlaceholder("RT52A_KEY")
	if err != nil {
		t.Fatal(err)
	}
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, host)
		c.Credentials = append(c.Credentials, Credential{Name: "RT52A_KEY", Placeholder: ph, Hosts: []string{host},
			Value: func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(value)), nil }})
		for _, o := range opts {
			o(c)
		}
	})
	e.h.res.mu.Lock()
	e.h.res.answers[host] = []netip.Addr{a}
	e.h.res.mu.Unlock()
	var (
		mu  sync.Mutex
		got []string
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		handler(w, r)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{e.root.issue(t, host)}}
	srv.Config.ErrorLog = quietLog
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e.h.dial.route(ap(a, 443), srv.Listener.Addr().String())
	return e, ph, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}
