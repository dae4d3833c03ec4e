package egress

import (
	"crypto/tls"
	"fmt"
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

// TestRedteam15MaskHeldTailPrefixOracle: the oracle on a streamed
// response body.
//
// Fixed: the mask now holds back the last bytes of a stream whatever they
// are and releases them on more data, the stream's end or a pause of the
// upstream's, so when the sandbox's own bytes come back no longer depends
// on the value.
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

// echoUpgrade switches to a raw echo protocol (as a WebSocket echo does with
// frames) and writes back every read at once.
func echoUpgrade(w http.ResponseWriter, r *http.Request) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = io.WriteString(brw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
	_ = brw.Flush()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	for {
		n, err := brw.Read(buf)
		if n > 0 {
			if _, werr := conn.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestRedteam15MaskHeldTailPrefixOracleUpgraded: the same oracle on an
// upgraded stream, from an upstream that only echoes the sandbox's own
// messages right away (a WebSocket echo), never the value.
//
// Fixed: an upgraded stream goes through the same maskReader, which now
// holds back the same number of bytes whatever they are.
func TestRedteam15MaskHeldTailPrefixOracleUpgraded(t *testing.T) {
	e := newCredEnv(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(echoUpgrade))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{e.root.issue(t, "api.test")}}
	srv.Config.ErrorLog = quietLog
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e.h.dial.route(ap(addrAPI, 443), srv.Listener.Addr().String())
	ph := e.ph["API_KEY"]

	// probe sends guess on a fresh upgraded stream that carried the value
	// and reports whether any of its echo came back within the wait (a
	// guess held back whole is a prefix of the value).
	const wait = 400 * time.Millisecond
	probe := func(guess string) (bool, string) {
		c, br := e.interceptedConn(t, "api.test:443")
		defer c.Close()
		fmt.Fprintf(c, "GET /ws HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer %s\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n", ph)
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("upgrade: %v %v", resp, err)
		}
		_, _ = io.WriteString(c, guess)
		_ = c.SetReadDeadline(time.Now().Add(wait))
		b := make([]byte, len(guess))
		n, _ := io.ReadFull(br, b)
		return n > 0, string(b[:n])
	}
	// Control: the echo works.
	if ok, got := probe("hello"); !ok || got != "hello" {
		t.Fatalf("control: echo %q", got)
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
	const want = 4
	known := ""
	for len(known) < want {
		var held []byte
		for i := 0; i < len(alphabet); i++ {
			if ok, _ := probe(known + alphabet[i:i+1]); !ok {
				held = append(held, alphabet[i])
			}
		}
		if len(held) != 1 {
			t.Logf("position %d: %d guesses held back (%q): no oracle", len(known), len(held), held)
			break
		}
		known += string(held)
	}
	e.assertNoValue(t)
	if len(known) == want && strings.HasPrefix(apiValue, known) {
		t.Fatalf("the sandbox recovered the first %d characters of the injected value (%q) from which of its own echoed messages the mask held back", want, known)
	}
}
