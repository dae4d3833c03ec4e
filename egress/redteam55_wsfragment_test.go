package egress

import (
	"bufio"
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

// TestRedteam55WebSocketFragmentSplitsEcho: "Wherever the response to a
// request repeats an injected value, it is masked" (egress.Credential).
// After a 101 the proxy masks the upgraded stream as raw bytes
// (relay.switchProtocols: mask.reader(r.ubr, "the upgraded stream")). A
// WebSocket message is not its raw bytes: a message may be sent in
// fragments (RFC 6455 §5.4), each with a frame header of its own, and
// every client joins the fragments' payloads. A value that the upstream
// repeats across a fragment boundary reaches the sandbox with 2 bytes of
// frame header in its middle, which no mask matches, and the client's
// WebSocket library hands the application the value whole. Fragmenting
// is what common servers do with a long message (gorilla/websocket's
// NextWriter sends a frame each time its 4 KiB buffer fills), and the
// sandbox, which writes the request, can pad the headers an echo repeats
// so that the value straddles such a boundary.
//
// Attack: GET /ws (Upgrade: websocket) with "Authorization: Bearer
// PLACEHOLDER"; the upstream answers 101 and sends the Authorization it
// got as one text message in two fragments, split inside the value; the
// sandbox's WebSocket client (golang.org/x/net/websocket) reads the
// message.
//
// Why it works: egress/relay.go:(*relay).switchProtocols masks the bytes
// after the 101 with egress/echo.go:maskReader, which matches a value only
// as contiguous bytes (or escapes, egress/echoforms.go); the WebSocket
// framing between fragments is not one of its forms, and the proxy
// never reads the stream as frames.
//
// Severity: high (the credential's plaintext reaches the sandbox), given
// a bound upstream that repeats the header in a WebSocket message, as
// the existing /echo/ws tests assume; the same message in one frame is
// masked (the control).
//
// Found by red-team round 55. Fixed: egress/wsmask.go (a WebSocket from a
// bound host is masked frame by frame, a message as one stream).
func TestRedteam55WebSocketFragmentSplitsEcho(t *testing.T) {
	const (
		host  = "ws.test"
		value = "sk-live-55WSfragment0123456789abcdef"
	)
	e, ph, got := rt52aEchoEnv(t, host, "203.0.113.59", value, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ws" || !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		msg := "authorization: " + r.Header.Get("Authorization") + "\n"
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		h := sha1.Sum([]byte(r.Header.Get("Sec-Websocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
			base64.StdEncoding.EncodeToString(h[:]))
		if r.URL.Query().Get("split") == "" {
			rt55cFrame(brw, true, 0x1, msg) // one frame: the control
		} else {
			// Two fragments, the boundary inside the value.
			cut := strings.Index(msg, "Bearer ") + len("Bearer ") + 10
			rt55cFrame(brw, false, 0x1, msg[:cut])
			rt55cFrame(brw, true, 0x0, msg[cut:])
		}
		_ = brw.Flush()
		// Stay open until the client is done.
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.Copy(io.Discard, conn)
	})

	read := func(path string) string {
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
		_ = tc.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := bufio.NewReader(ws).ReadString('\n')
		if err != nil {
			t.Fatalf("premise: reading the message: %v (%q)", err, line)
		}
		return line
	}

	// Control: the message in one frame is masked.
	if line := read("/ws"); strings.Contains(line, value) || !strings.Contains(line, strings.Repeat("*", len(value))) {
		t.Fatalf("control: one frame: %q", line)
	}
	if g := got(); len(g) != 1 || g[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}

	line := read("/ws?split=1")
	if !strings.HasPrefix(line, "authorization: Bearer ") {
		t.Fatalf("premise: the fragmented message: %q", line)
	}
	if strings.Contains(line, value) {
		t.Errorf("the sandbox's WebSocket client read the credential's value, repeated across two fragments: %q", line)
	}
}

// rt55cFrame writes one unmasked WebSocket frame (server to client) with
// a payload under 126 bytes.
func rt55cFrame(w io.Writer, fin bool, op byte, payload string) {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	_, _ = w.Write([]byte{b0, byte(len(payload))})
	_, _ = io.WriteString(w, payload)
}
