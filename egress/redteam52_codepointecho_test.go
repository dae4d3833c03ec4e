package egress

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRedteam52CodePointEscapeEcho: the mask finds a value "with each of
// its bytes" written as itself or as an escape (echoforms.go). JSON and
// HTML do not escape bytes: they escape characters. A value with a
// non-ASCII character (a password or passphrase with ü or ß; a
// Credential.Value may hold any byte but controls) is UTF-8 on the wire,
// ü being the two bytes C3 BC, and a stack that escapes non-ASCII writes
// the character, once: PHP's json_encode by default (json_encode(
// getallheaders()), the very echo round 50 names), Python's json.dumps
// and Flask's jsonify (ensure_ascii), .NET's System.Text.Json, Java's
// StringEscapeUtils write "\u00fc"; an HTML or XML writer asked for ASCII
// (Python's xmlcharrefreplace, PHP's mb_encode_numericentity) writes
// "&#252;". The mask reads "\u00fc" and "&#252;" as the single byte FC,
// which is no byte of the value, finds nothing, and the sandbox's JSON or
// HTML parser gives it the value whole. No leak is recorded.
//
// Attack: GET /echo/php on the bound host with "Authorization: Bearer
// PLACEHOLDER"; the upstream answers json_encode of the request headers
// (PHP's defaults: \/ and \uXXXX); the sandbox unmarshals the JSON. The
// same with an HTML page that writes non-ASCII as numeric references.
//
// Why it works: egress/echoforms.go:backslashForm maps \uXXXX to the byte
// XXXX (x < 256), and numericRef maps &#N; the same way: an escape there
// stands for one byte of the value, never for the UTF-8 sequence of the
// character it names, so (*formMatcher).at fails at the first non-ASCII
// character (egress/echo.go:(*echoMask).maskAfter masks nothing).
//
// Severity: high (the credential's plaintext reaches the sandbox), for a
// value with a non-ASCII character behind an upstream that repeats the
// header through such an encoder.
//
// Found by red-team round 52.
// Fixed: a character of more than one byte also matches its code point's
// escapes (\u00fc, a surrogate pair, &#252;; echoforms.go).
func TestRedteam52CodePointEscapeEcho(t *testing.T) {
	const (
		host  = "utf8.test"
		value = "Zugang-Grüße/2024-9f3a7c1e5d"
	)
	e, ph, got := rt52aEchoEnv(t, host, "203.0.113.53", value, func(w http.ResponseWriter, r *http.Request) {
		hs := map[string]string{"Authorization": r.Header.Get("Authorization")}
		switch r.URL.Path {
		case "/echo/plain": // control: the bytes as they came
			b, _ := json.Marshal(hs) // Go keeps UTF-8 as it is
			_, _ = w.Write(b)
		case "/echo/php": // json_encode(getallheaders())
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprint(w, rt52aPHPJSON(hs))
		case "/echo/html": // an error page written in ASCII
			w.Header().Set("Content-Type", "text/html")
			_, _ = fmt.Fprintf(w, "<p>Rejected credentials: <code>%s</code></p>", rt52aASCIIHTML(hs["Authorization"]))
		}
	})
	hdr := map[string]string{"Authorization": "Bearer " + ph}

	// Premise: PHP's encoding of the value escapes its characters, and a
	// JSON (HTML) parser gives the value back from it.
	enc := rt52aPHPJSON(map[string]string{"k": value})
	if !strings.Contains(enc, `Gr\u00fc\u00dfe\/2024`) {
		t.Fatalf("premise: PHP-style encoding %q", enc)
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(enc), &back); err != nil || back["k"] != value {
		t.Fatalf("premise: json.Unmarshal(%q) = %q, %v", enc, back["k"], err)
	}
	if h := rt52aASCIIHTML(value); html.UnescapeString(h) != value || !strings.Contains(h, "&#252;") {
		t.Fatalf("premise: HTML %q", h)
	}

	// Control: the literal (UTF-8) echo is masked, and the upstream got
	// the value.
	resp, body, _ := doRaw(t, e, host, "/echo/plain", hdr)
	if resp.StatusCode != 200 || strings.Contains(body, "9f3a7c1e5d") || !strings.Contains(body, strings.Repeat("*", len(value))) {
		t.Fatalf("control: literal echo: status %d, body %q", resp.StatusCode, body)
	}
	if g := got(); len(g) != 1 || g[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}

	resp, body, _ = doRaw(t, e, host, "/echo/php", hdr)
	var m map[string]string
	if err := json.Unmarshal([]byte(body), &m); err == nil && strings.Contains(m["Authorization"], value) {
		t.Errorf("the sandbox decoded the credential's value %q from json_encode's answer %q (status %d): the mask reads \\u00fc as the byte FC",
			m["Authorization"], body, resp.StatusCode)
	}

	resp, body, _ = doRaw(t, e, host, "/echo/html", hdr)
	if dec := html.UnescapeString(body); strings.Contains(dec, value) {
		t.Errorf("the sandbox decoded the credential's value from the HTML page %q (status %d): the mask reads &#252; as the byte FC", body, resp.StatusCode)
	}
}

// rt52aPHPJSON is PHP's json_encode of a string map with its default
// flags: "/" as "\/", every non-ASCII character as \uXXXX (lower-case hex,
// UTF-16 surrogate pairs beyond the BMP).
func rt52aPHPJSON(m map[string]string) string {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for k, v := range m {
		if !first {
			b.WriteByte(',')
		}
		first = false
		rt52aPHPString(&b, k)
		b.WriteByte(':')
		rt52aPHPString(&b, v)
	}
	b.WriteByte('}')
	return b.String()
}

func rt52aPHPString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '/':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
}

// rt52aASCIIHTML is s escaped for HTML in ASCII (Python's
// html.escape(s).encode("ascii", "xmlcharrefreplace")).
func rt52aASCIIHTML(s string) string {
	var b strings.Builder
	for _, r := range html.EscapeString(s) {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "&#%d;", r)
		}
	}
	return b.String()
}
