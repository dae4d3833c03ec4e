package egress

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestRedteam50EscapedEchoUnmasked: the proxy masks an injected value
// wherever the response to the request repeats it ("Wherever the response
// to a request repeats an injected value, it is masked", egress.Credential;
// echo services and error pages that repeat the request's headers are the
// threat TestEchoedValueMasked attacks). The mask looks for the value's
// bytes as they went out, and nothing else. Servers that repeat a header
// rarely repeat its bytes: they repeat it inside JSON or a URL, escaped as
// those require or as their stack does by default. A value with "/" or
// "+" (base64: AWS secret keys, Azure storage keys, most generated
// secrets) comes back as "\/" from PHP's json_encode, as "\u002B" from
// .NET's System.Text.Json, as "%2F"/"%2B" in a Location or link; the mask
// finds none of them, the response reaches the sandbox with the value in a
// form one unescape away, and no leak is recorded.
//
// Attack: GET /echo/{php,dotnet,redirect} with "Authorization: Bearer
// PLACEHOLDER" to the bound host; the upstream answers with the header
// JSON-encoded the PHP or .NET way, or in a redirect URL; the sandbox
// decodes it and has the value.
//
// Why it works: egress/echo.go:(*echoMask).maskAfter (and maskString,
// maskName) match only the literal value (and its Basic form).
//
// Severity: high (the credential's plaintext reaches the sandbox), given an
// upstream that repeats request headers, the premise of the mask itself.
// Found by red-team round 50. Fixed: the mask finds a value written with
// each byte as itself or in a JSON, JavaScript, URL or HTML escape
// (echoforms.go), in the body, header values and names, the status line
// and the trailer.
func TestRedteam50EscapedEchoUnmasked(t *testing.T) {
	const (
		host  = "b64.test"
		value = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYrt50bKEY=="
	)
	// The bound upstream (rt52aEchoEnv records what it received): it repeats
	// the Authorization header as the stacks named above do.
	e, ph, got := rt52aEchoEnv(t, host, "203.0.113.50", value, func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/echo/plain": // control: the bytes as they came
			fmt.Fprintf(w, `{"authorization":"%s"}`, auth)
		case "/echo/php": // json_encode(getallheaders()): "/" as "\/"
			b, _ := json.Marshal(map[string]string{"Authorization": auth})
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(strings.ReplaceAll(string(b), "/", `\/`)))
		case "/echo/dotnet": // System.Text.Json's default encoder: "+" as "\u002B"
			b, _ := json.Marshal(map[string]string{"authorization": auth})
			_, _ = w.Write([]byte(strings.ReplaceAll(string(b), "+", `\u002B`)))
		case "/echo/redirect": // a login/error redirect carrying what it was sent
			http.Redirect(w, r, "/denied?auth="+url.QueryEscape(auth), http.StatusFound)
		}
	})

	hdr := map[string]string{"Authorization": "Bearer " + ph}

	// Control: a literal echo is masked, and the upstream got the value.
	resp, body, _ := doRaw(t, e, host, "/echo/plain", hdr)
	if resp.StatusCode != 200 || strings.Contains(body, value) || !strings.Contains(body, "Bearer "+strings.Repeat("*", len(value))) {
		t.Fatalf("control: literal echo: status %d, body %q", resp.StatusCode, body)
	}
	first := got()
	if len(first) != 1 || first[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", first)
	}

	for _, tc := range []struct {
		path   string
		decode func(resp *http.Response, body string) string
	}{
		{"/echo/php", func(_ *http.Response, body string) string {
			var m map[string]string
			_ = json.Unmarshal([]byte(body), &m)
			return m["Authorization"]
		}},
		{"/echo/dotnet", func(_ *http.Response, body string) string {
			var m map[string]string
			_ = json.Unmarshal([]byte(body), &m)
			return m["authorization"]
		}},
		{"/echo/redirect", func(resp *http.Response, _ string) string {
			u, err := url.Parse(resp.Header.Get("Location"))
			if err != nil {
				return ""
			}
			return u.Query().Get("auth")
		}},
	} {
		t.Run(strings.TrimPrefix(tc.path, "/echo/"), func(t *testing.T) {
			resp, body, _ := doRaw(t, e, host, tc.path, hdr)
			if decoded := tc.decode(resp, body); strings.Contains(decoded, value) {
				t.Errorf("the sandbox decoded the credential's value %q from the response to %s (body %q, Location %q); the mask saw only the literal bytes",
					decoded, tc.path, body, resp.Header.Get("Location"))
			}
		})
	}
}
