package egress

import (
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// TestRedteam56WebSocketEchoAcrossMessages: round 55 made the proxy read
// a WebSocket from a bound host frame by frame and mask "a message's
// payload as one stream" (egress/wsmask.go), so that a value split
// across two fragments is masked. Each message is still masked on its
// own: at a message's last frame everything held is masked and sent
// (wsMask.send(end)). A server that streams a text in messages of a
// fixed size (a log or terminal tail, a file served in chunks: each read
// of its source one message) splits a value across two messages, and
// the sandbox, which only has to join the payloads, reads it whole. The
// sandbox writes the request and chooses the padding that puts the
// value across the boundary. The raw byte stream of any other upgrade,
// and every HTTP body, is masked across its reads (maskReader's held
// tail); the message boundary is the one place the mask forgets.
//
// Attack: GET /tail (Upgrade: websocket) with "Authorization: Bearer
// PLACEHOLDER"; the upstream sends back what it stored as text messages
// of 32 bytes each; the sandbox's WebSocket client reads the messages
// and joins them.
//
// Why it works: egress/wsmask.go:(*wsMask).send: `if !end { keep = ... }`
// holds the tail only inside a message; at FIN the held bytes are masked
// alone and sent, so a value whose start ends one message is never seen
// with its rest, which begins the next.
//
// Severity: high (the credential's plaintext reaches the sandbox), given
// a bound upstream that repeats the header in a WebSocket, as round 55's
// tests assume, and sends it in more than one message. The same text in
// one message is masked, and a WebSocket echo of the sandbox's own
// message works (the controls).
//
// Found by red-team round 56. Fixed: egress/wsmask.go (the payloads of a
// WebSocket's data messages are masked as one stream, a message's end held
// for what follows it or a quiet time).
func TestRedteam56WebSocketEchoAcrossMessages(t *testing.T) {
	const (
		host  = "rt56b-wsmsg.test"
		value = "sk-live-56WSMSG0123456789abcdefXYZ"
	)
	e, ph, got := rt52aEchoEnv(t, host, "203.0.113.163", value, func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		text := "authorization: " + r.Header.Get("Authorization") + "\n"
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		h := sha1.Sum([]byte(r.Header.Get("Sec-Websocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
			base64.StdEncoding.EncodeToString(h[:]))
		switch r.URL.Path {
		case "/echo": // echoes the client's first message
			_ = brw.Flush()
			var c [2]byte
			if _, err := io.ReadFull(brw, c[:]); err != nil {
				return
			}
			n := int(c[1] & 0x7f)
			var key [4]byte
			_, _ = io.ReadFull(brw, key[:])
			p := make([]byte, n)
			_, _ = io.ReadFull(brw, p)
			for i := range p {
				p[i] ^= key[i%4]
			}
			rt55cFrame(brw, true, 0x1, string(p))
		case "/one":
			rt55cFrame(brw, true, 0x1, text)
		case "/tail": // the text in messages of 32 bytes
			for len(text) > 0 {
				k := min(32, len(text))
				rt55cFrame(brw, true, 0x1, text[:k])
				text = text[k:]
			}
		}
		_ = brw.Flush()
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.Copy(io.Discard, conn)
	})

	// read opens a WebSocket to path and reads messages up to a newline.
	read := func(path, send string) string {
		t.Helper()
		tc, _ := e.interceptedConn(t, host+":443")
		defer tc.Close()
		cfg, err := websocket.NewConfig("wss://"+host+path, "https://"+host)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Header = http.Header{"Authorization": {"Bearer " + ph}}
		ws, err := websocket.NewClient(cfg, tc)
		if err != nil {
			t.Fatalf("premise: WebSocket handshake through the proxy: %v", err)
		}
		defer ws.Close()
		if send != "" {
			if err := websocket.Message.Send(ws, send); err != nil {
				t.Fatal(err)
			}
		}
		_ = tc.SetReadDeadline(time.Now().Add(5 * time.Second))
		var all strings.Builder
		for !strings.HasSuffix(all.String(), "\n") {
			var m string
			if err := websocket.Message.Receive(ws, &m); err != nil {
				t.Fatalf("premise: reading the messages: %v (%q)", err, all.String())
			}
			all.WriteString(m)
		}
		return all.String()
	}

	// Control: a WebSocket echo through the bound host works.
	if m := read("/echo", "hello rt56b\n"); m != "hello rt56b\n" {
		t.Fatalf("control: echo: %q", m)
	}
	// Control: the text in one message is masked.
	if m := read("/one", ""); strings.Contains(m, value) || !strings.Contains(m, strings.Repeat("*", len(value))) {
		t.Fatalf("control: one message: %q", m)
	}
	if g := got(); len(g) < 1 || g[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}

	m := read("/tail", "")
	if !strings.HasPrefix(m, "authorization: Bearer ") {
		t.Fatalf("premise: the messages: %q", m)
	}
	if strings.Contains(m, value) {
		t.Errorf("the sandbox read the credential's value, repeated across two WebSocket messages: %q", m)
	}
}
