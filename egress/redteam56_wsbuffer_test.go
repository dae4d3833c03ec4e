package egress

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestRedteam56WebSocketFrameHeldWhole: round 55's frame reader
// (egress/wsmask.go) reads a data frame's payload in chunks of 32 KiB
// (wsChunk, "bounds what one read of a data frame's payload takes") and
// masks each, but frame() returns only when the whole frame is read:
// every chunk's output is appended to w.out, which Read hands to the
// client only after frame() returns. A frame of any length (the 127
// form allows 2^63-1 bytes) is therefore held in the agentbox process's
// memory whole before a byte of it reaches the client. The sandbox
// drives it through any WebSocket echo on a bound host (a chat, an echo
// endpoint, a service repeating what it is sent): it sends one big
// message, which the proxy passes upstream as it comes, and the echo
// streams back as one frame, held entire. Memory then grows with what
// the sandbox sends, on as many connections as it opens: the process's
// memory is charged to no sandbox (the reason response heads are
// bounded, upstreamReader). It also breaks a legitimate large
// streamed message, which arrives only once complete.
//
// Attack: a WebSocket (GET /echo, Upgrade: websocket) to a host a
// credential is bound to; the sandbox sends a binary frame claiming
// 64 MiB and 24 MiB of its payload; the upstream echoes the payload as
// it reads it, in one frame; the client reads what comes back.
//
// Why it works: egress/wsmask.go:(*wsMask).frame loops `for first :=
// true; first || n > 0` over the whole payload, each w.send appending to
// w.out; (*wsMask).Read calls frame() while len(w.out) == 0 and returns
// nothing before it ends.
//
// Severity: medium (a denial of service of the host: the proxy's memory
// grows without bound under the sandbox's control). A small echo works
// (the control).
//
// Found by red-team round 56. Fixed: egress/wsmask.go (a data frame is passed on a chunk at a time).
func TestRedteam56WebSocketFrameHeldWhole(t *testing.T) {
	const (
		host  = "rt56b-wsbuf.test"
		claim = 64 << 20
		sent  = 24 << 20
	)
	var echoed atomic.Int64
	e, ph, _ := rt52aEchoEnv(t, host, "203.0.113.165", "sk-live-56WSBUF0123456789abcdef", func(w http.ResponseWriter, r *http.Request) {
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		h := sha1.Sum([]byte(r.Header.Get("Sec-Websocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
			base64.StdEncoding.EncodeToString(h[:]))
		_ = brw.Flush()
		_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
		// A streaming echo of one client frame: its head, then its
		// payload unmasked as it comes.
		var h2 [2]byte
		if _, err := io.ReadFull(brw, h2[:]); err != nil {
			return
		}
		n := uint64(h2[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			_, _ = io.ReadFull(brw, b[:])
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			_, _ = io.ReadFull(brw, b[:])
			n = binary.BigEndian.Uint64(b[:])
		}
		var key [4]byte
		_, _ = io.ReadFull(brw, key[:])
		_, _ = brw.Write(appendFrame(nil, true, h2[0]&0x0f, nil)[:1])
		var lb []byte
		switch {
		case n < 126:
			lb = []byte{byte(n)}
		case n <= 0xffff:
			lb = binary.BigEndian.AppendUint16([]byte{126}, uint16(n))
		default:
			lb = binary.BigEndian.AppendUint64([]byte{127}, n)
		}
		_, _ = brw.Write(lb)
		_ = brw.Flush()
		buf := make([]byte, 64<<10)
		var off uint64
		for off < n {
			k, err := brw.Read(buf[:min(uint64(len(buf)), n-off)])
			for i := 0; i < k; i++ {
				buf[i] ^= key[(off+uint64(i))%4]
			}
			off += uint64(k)
			if _, werr := conn.Write(buf[:k]); werr != nil || err != nil {
				return
			}
			echoed.Add(int64(k))
		}
	})

	open := func() (io.ReadWriteCloser, *bufio.Reader) {
		tc, br := e.interceptedConn(t, host+":443")
		fmt.Fprintf(tc, "GET /echo HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer %s\r\n\r\n", host, ph)
		_ = tc.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil || resp.StatusCode != 101 {
			t.Fatalf("premise: upgrade: %v %v", resp, err)
		}
		return tc, br
	}
	// clientHead is a masked client frame head (zero mask key).
	clientHead := func(n uint64) []byte {
		switch {
		case n < 126:
			return []byte{0x82, 0x80 | byte(n), 0, 0, 0, 0}
		default:
			return append(binary.BigEndian.AppendUint64([]byte{0x82, 0x80 | 127}, n), 0, 0, 0, 0)
		}
	}

	// Control: a small echo comes back.
	c, br := open()
	_, _ = c.Write(append(clientHead(5), "hello"...))
	var got [7]byte
	if _, err := io.ReadFull(br, got[:]); err != nil || string(got[2:]) != "hello" {
		t.Fatalf("control: small echo: %q %v", got, err)
	}
	c.Close()

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	c, br = open()
	defer c.Close()
	go func() {
		_, _ = c.Write(clientHead(claim))
		chunk := make([]byte, 256<<10)
		for i := 0; i < sent/len(chunk); i++ {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	}()
	// What reaches the client, read as it comes: a proxy that streams
	// passes most of it on while the echo sends (one that held the frame
	// whole passed nothing on until its end, and the echo, writing into
	// the proxy's buffer, sent it all). Fixed: the premise read only after
	// the echo had sent it all, which a streaming proxy's backpressure
	// (the client not reading) never let happen.
	var back int
	buf := make([]byte, 64<<10)
	_ = c.(interface{ SetReadDeadline(time.Time) error }).SetReadDeadline(time.Now().Add(15 * time.Second))
	for back < sent/2 {
		k, err := br.Read(buf)
		back += k
		if err != nil {
			break
		}
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("the client got %d bytes of the %d the echo sent; heap grew by %d MiB", back, sent, grown>>20)
	if back < sent/2 {
		t.Errorf("the proxy held the echoed WebSocket frame instead of passing it on: the client got %d of %d bytes; the heap grew by %d MiB", back, sent, grown>>20)
	}
}
