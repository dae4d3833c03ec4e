package egress

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The echo mask holds back the end of a streamed response only when that
// end could begin an injected value (maskReader.heldTail). Whether bytes
// the sandbox chose itself arrive at once or only after the upstream's
// next write therefore tells the sandbox whether they begin the value: a
// prefix oracle that recovers the secret a character at a time from any
// bound host that streams back what it is sent (an echo endpoint, a
// WebSocket echo, a chat API repeating the prompt), although the upstream
// never repeats the value itself.

// streamEchoPause is how long the streaming echo waits after writing back
// what it was sent.
const streamEchoPause = 600 * time.Millisecond

// streamEcho writes back the request body, flushes, pauses, then ends
// with "|end". It never sees or repeats anything but the body.
func streamEcho(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	_, _ = w.Write(body)
	http.NewResponseController(w).Flush()
	select {
	case <-time.After(streamEchoPause):
	case <-r.Context().Done():
		return
	}
	_, _ = io.WriteString(w, "|end")
}

// firstByteDelay sends guess to the streaming echo on api.test with the
// API_KEY placeholder in Authorization (so the value is injected and the
// response masked) and returns how long the first body byte took after
// the head, and the body as far as read.
func firstByteDelay(t *testing.T, c *http.Client, ph, guess string, whole bool) (time.Duration, string) {
	t.Helper()
	req, err := http.NewRequest("POST", "https://api.test/stream", strings.NewReader(guess))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+ph)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("probe %q: %v", guess, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("probe %q: %s %s", guess, resp.Status, b)
	}
	start := time.Now()
	var b [1]byte
	if _, err := io.ReadFull(resp.Body, b[:]); err != nil {
		t.Fatalf("probe %q: %v", guess, err)
	}
	d := time.Since(start)
	got := string(b[:])
	if whole {
		rest, _ := io.ReadAll(resp.Body)
		got += string(rest)
	}
	return d, got
}

func TestRedteam15MaskHeldTailPrefixOracle(t *testing.T) {
	e := newCredEnv(t)
	// api.test (API_KEY's bound host) streams back what it is sent.
	srv := httptest.NewUnstartedServer(http.HandlerFunc(streamEcho))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{e.root.issue(t, "api.test")}}
	srv.Config.ErrorLog = quietLog
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e.h.dial.route(ap(addrAPI, 443), srv.Listener.Addr().String())

	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		Proxy:             http.ProxyURL(&url.URL{Scheme: "http", Host: e.h.addr}),
		TLSClientConfig:   &tls.Config{RootCAs: e.clientCA},
		DisableKeepAlives: true,
	}}
	ph := e.ph["API_KEY"]

	// Control: the echo streams back whole, the sandbox's bytes intact.
	if _, got := firstByteDelay(t, c, ph, "hello", true); got != "hello|end" {
		t.Fatalf("control: the stream came back as %q", got)
	}

	// Attack: guess the value one character at a time; a guess held back
	// until the upstream's pause ends is a prefix of the value.
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
	const want = 5
	known := ""
	for len(known) < want {
		var slow []byte
		for i := 0; i < len(alphabet); i++ {
			d, _ := firstByteDelay(t, c, ph, known+alphabet[i:i+1], false)
			if d > streamEchoPause/2 {
				slow = append(slow, alphabet[i])
			}
		}
		if len(slow) != 1 {
			t.Logf("position %d: %d guesses held back (%q): no oracle", len(known), len(slow), slow)
			break
		}
		known += string(slow)
	}
	e.assertNoValue(t)
	if len(known) == want && strings.HasPrefix(apiValue, known) {
		t.Fatalf("the sandbox recovered the first %d characters of the injected value (%q) from when the echo mask released its own bytes, without the upstream ever repeating the value", want, known)
	}
}
