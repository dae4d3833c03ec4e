package egress

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestRedteam60WebSocketEmptyMessagesQuadratic: a WebSocket from a host a
// credential is bound to is masked frame by frame (egress/wsmask.go).
// While the last bytes of a data message are held back (the tail a value
// could begin in, up to formSpan of the longest value), every message
// that follows is queued in wsMask.msgs behind it, and each data frame
// that arrives calls (*wsMask).release, which walks the whole queue
// (`for i := range w.msgs { … end -= n }`) even when it sends nothing.
// Empty messages add no bytes, so the held tail never passes the keep
// bound and nothing is released while the upstream keeps sending: the
// queue grows by one entry for every 2-byte frame, and each frame costs
// time linear in the queue, quadratic in all. The agentbox process (whose
// CPU and memory no sandbox limit counts) spins on one core per such
// connection, and the client gets nothing of the stream until the
// upstream pauses for 250 ms.
//
// Attack: a WebSocket (GET /echo, Upgrade: websocket, "Authorization:
// Bearer PLACEHOLDER", so a value went out and the mask holds one) to a
// bound host whose endpoint echoes each message (a chat, an echo
// service, the round-56 premise); the sandbox sends one short text
// message ("hello-rt60") and then 150,000 empty text messages (900 KB on
// the wire). The echo sends them back as it reads them.
//
// Why it works: egress/wsmask.go:(*wsMask).next appends a wsMessage for
// every data frame that starts a message, and (*wsMask).release keeps
// every message whose end lies in the held tail, then loops over all of
// w.msgs to shift their ends, on every chunk (an empty frame's too);
// nothing bounds len(w.msgs).
//
// Severity: medium (a denial of service of the host: the agentbox
// process's CPU, quadratic in what the sandbox sends to an echo, and its
// memory, 16 bytes of queue per 2-byte frame, outside every cgroup; one
// connection per core stalls every other sandbox's egress). Control: the
// same 150,000 empty messages on a connection whose mask holds no value
// (no placeholder sent) come back at once.
//
// Found by red-team round 60. Fixed: message offsets are kept in the
// whole stream (wsMask.base), so a release walks only the messages it
// sends; an empty message like the empty one before it is counted in
// that one's repeat; runs of empty messages of alternating types are
// bounded (errWebSocketEmpties).
func TestRedteam60WebSocketEmptyMessagesQuadratic(t *testing.T) {
	const host = "rt60c-wsempty.test"
	n := 150000
	if s := os.Getenv("RT60C_WS_EMPTY"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	e, ph, auths := rt52aEchoEnv(t, host, "203.0.113.166", "sk-live-60WSEMPTY0123456789abcdef", rt60cWSMessageEcho)

	open := func(auth bool) (io.ReadWriteCloser, *bufio.Reader) {
		tc, br := e.interceptedConn(t, host+":443")
		a := ""
		if auth {
			a = "Authorization: Bearer " + ph + "\r\n"
		}
		fmt.Fprintf(tc, "GET /echo HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n%s\r\n", host, a)
		_ = tc.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil || resp.StatusCode != 101 {
			t.Fatalf("premise: upgrade: %v %v", resp, err)
		}
		return tc, br
	}
	// run sends "hello-rt60" and n empty text messages, and reads n+1
	// messages back; it returns how long that took, the CPU this process
	// used meanwhile, and whether every message came back.
	run := func(auth bool) (time.Duration, time.Duration, bool) {
		c, br := open(auth)
		defer c.Close()
		msgs := rt60cClientFrame(nil, 0x81, []byte("hello-rt60"))
		for i := 0; i < n; i++ {
			msgs = rt60cClientFrame(msgs, 0x81, nil)
		}
		cpu0, t0 := processCPU(), time.Now()
		go func() { _, _ = c.Write(msgs) }()
		_ = c.(interface{ SetReadDeadline(time.Time) error }).SetReadDeadline(time.Now().Add(60 * time.Second))
		got, first := 0, ""
		for got < n+1 {
			op, payload, err := rt60cReadServerFrame(br)
			if err != nil {
				t.Logf("reading the echo: %v after %d messages", err, got)
				return time.Since(t0), processCPU() - cpu0, false
			}
			if op&0x0f == 0 {
				continue // a continuation of a message the proxy split
			}
			if got == 0 {
				first = string(payload)
			}
			if op&0x80 == 0 { // the first frame of a split message: read on to its end
				for {
					op2, p2, err := rt60cReadServerFrame(br)
					if err != nil {
						return time.Since(t0), processCPU() - cpu0, false
					}
					first += string(p2)
					if op2&0x80 != 0 {
						break
					}
				}
			}
			got++
		}
		if first != "hello-rt60" {
			t.Fatalf("premise: the echo's first message is %q, want hello-rt60", first)
		}
		return time.Since(t0), processCPU() - cpu0, true
	}

	// Control first: no value has gone out to the host yet, so the mask
	// holds nothing back.
	ctlWall, ctlCPU, ok := run(false)
	if !ok {
		t.Fatalf("control: the echo of %d empty messages did not come back (%v)", n, ctlWall)
	}
	t.Logf("control (no value went out): %d messages back in %v, %v of CPU", n+1, ctlWall, ctlCPU)

	wall, cpu, ok := run(true)
	if a := auths(); len(a) != 2 || a[1] != "Bearer sk-live-60WSEMPTY0123456789abcdef" {
		t.Fatalf("premise: the upstream did not get the value injected into the second upgrade: %q", a)
	}
	t.Logf("attack (a value went out): %d messages back: %v in %v, %v of CPU", n+1, ok, wall, cpu)
	// Linear work takes well under a second here (the control); the
	// queue's walk took 11 s of CPU for these 900 KB (20 s for 1.2 MB).
	limit := max(5*time.Second, 5*max(ctlWall, ctlCPU))
	if !ok || wall > limit || cpu > limit {
		t.Errorf("echoing %d empty WebSocket messages (%d bytes) from a bound host took the proxy %v and %v of CPU (%v and %v with no value sent): "+
			"each message queues behind the held tail and every frame walks the whole queue (egress/wsmask.go:(*wsMask).release)",
			n, 6*n+16, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), ctlWall.Round(time.Millisecond), ctlCPU.Round(time.Millisecond))
	}
}

// rt60cWSMessageEcho answers a WebSocket upgrade and echoes each client
// frame as a server frame (same FIN and opcode, payload unmasked),
// flushing whenever no more client bytes are buffered, as an echo
// endpoint does.
func rt60cWSMessageEcho(w http.ResponseWriter, r *http.Request) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	h := sha1.Sum([]byte(r.Header.Get("Sec-Websocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
		base64.StdEncoding.EncodeToString(h[:]))
	_ = brw.Flush()
	_ = conn.SetDeadline(time.Now().Add(90 * time.Second))
	bw := bufio.NewWriterSize(conn, 64<<10)
	for {
		var h2 [2]byte
		if _, err := io.ReadFull(brw, h2[:]); err != nil {
			return
		}
		n := uint64(h2[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(brw, b[:]); err != nil {
				return
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(brw, b[:]); err != nil {
				return
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > 1<<20 {
			return
		}
		var key [4]byte
		if h2[1]&0x80 != 0 {
			if _, err := io.ReadFull(brw, key[:]); err != nil {
				return
			}
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(brw, payload); err != nil {
			return
		}
		for i := range payload {
			payload[i] ^= key[i%4]
		}
		if h2[0]&0x0f == 8 { // close
			return
		}
		_, _ = bw.Write(appendFrame(nil, h2[0]&0x80 != 0, h2[0]&0x0f, payload))
		if brw.Reader.Buffered() == 0 {
			if bw.Flush() != nil {
				return
			}
		}
	}
}

// rt60cClientFrame appends a client frame (masked with a zero key) to b.
func rt60cClientFrame(b []byte, h0 byte, payload []byte) []byte {
	switch n := len(payload); {
	case n < 126:
		b = append(b, h0, 0x80|byte(n))
	default:
		b = append(b, h0, 0x80|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	}
	b = append(b, 0, 0, 0, 0)
	return append(b, payload...)
}

// rt60cReadServerFrame reads one server frame: its first byte (FIN and
// opcode) and payload.
func rt60cReadServerFrame(br *bufio.Reader) (byte, []byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if n > 1<<20 {
		return 0, nil, fmt.Errorf("frame of %d bytes", n)
	}
	p := make([]byte, n)
	_, err := io.ReadFull(br, p)
	return h[0], p, err
}
