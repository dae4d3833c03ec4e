package egress

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// rt49aHeaderLines returns about n bytes of header lines with distinct
// short names ("abcd:" and an empty value, 7 bytes a line): the most
// header fields a head of n bytes can hold.
func rt49aHeaderLines(n int) []byte {
	const first = "abcdefghijklmnopqrstuvwxyz"
	const rest = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b bytes.Buffer
	for i := 0; b.Len()+7 <= n; i++ {
		k := []byte{first[i/(36*36*36)%26], rest[i/(36*36)%36], rest[i/36%36], rest[i%36]}
		b.Write(k)
		b.WriteString(":\r\n")
	}
	return b.Bytes()
}

// rt49aReadHead reads from r up to and including the blank line ending a
// head, and returns its length.
func rt49aReadHead(r *bufio.Reader) (int, error) {
	n := 0
	for {
		line, err := r.ReadSlice('\n')
		n += len(line)
		if err != nil && err != bufio.ErrBufferFull {
			return n, err
		}
		if err == nil && (string(line) == "\r\n" || string(line) == "\n") {
			return n, nil
		}
	}
}

// TestRedteam49HeaderMapHeld attacks the agentbox process's memory through
// the parsed form of a request or response head. The proxy bounds heads
// by their bytes (a request's at maxHeaderBytes, 64 KiB; an upstream
// response's at maxResponseHead, 1 MiB: "the agentbox process reads each
// head whole, and its memory is charged to no sandbox"), but it keeps each
// head parsed by net/http (http.ReadRequest, http.ReadResponse ->
// textproto.ReadMIMEHeader, unbounded in fields) for as long as the
// exchange lasts: a map entry, a key string and a value slice per field,
// 120-150 bytes each as measured here (textproto's own reckoning,
// mapEntryOverhead, is 200). A head of distinct empty fields ("abcd:", 7
// bytes a line) is therefore held at about 20 times its size (measured:
// a 63 KiB request head holds ~1.1 MiB, where an ordinary request waiting
// for its body holds ~50 KiB; a 1020 KiB response head holds ~21 MiB):
//
//   - request: a sandboxed program sends, through one proxy connection per
//     tunnel slot, a POST whose 64 KiB head holds ~9,000 such fields and
//     then trickles (or withholds) its body: forward keeps pr.req (and its
//     Header map) while req.Write waits for the body, with only the 5 min
//     idle limit between bytes. Any allowed HTTP server that waits for a
//     body (all do, for their body timeout) will do; no cooperation.
//   - response: an allowed upstream the agent controls (Allowed "*",
//     OnRequest, a host it publishes to) answers with a 1 MiB head of
//     ~150,000 fields and withholds the body (or the program stops
//     reading): forward (and relay, in a tunnel) keeps resp and its map.
//
// With MaxTunnels (1024) such exchanges, that is gigabytes (request) to
// tens of gigabytes (response) of agentbox's heap, charged to no sandbox,
// where the README reports ~14-16 KB per tunnel ("bounded") and presents
// the 1 MiB head bound as what bounds a response's memory.
//
// Severity: medium (denial of service of the host process; the agentbox
// daemon serves every other agent too).
// Code at fault: readProxyRequest / readTunnelRequest (http.go,
// inject.go) and upstreamReader.readResponse (response.go): heads are
// bounded in bytes only, not in fields, and the parsed map is held for the
// exchange's life.
// Control: an ordinary request and response through the same proxy work.
//
// Found by red-team round 49 (medium). Fixed: a request head of more than
// maxHeaderFields (500) fields is refused with 431 before it is parsed
// (checkHeaderBlock), and a response head of more than maxResponseFields
// (1000) is cut off as it is read (headLimit.countLines), a 502.
func TestRedteam49HeaderMapHeld(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test:*"}}, HandshakeTimeout: 30 * time.Second})

	// An upstream that answers ordinary requests (the control).
	normal := tcpServer(t, func(c net.Conn) {
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		br := bufio.NewReader(c)
		for {
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"); err != nil {
				return
			}
		}
	})
	h.dial.route(ap(addrAllowed, 8080), normal)

	// An upstream that reads a request head and waits for its body, as
	// every HTTP server does; it counts the heads it got whole.
	var heads atomic.Int64
	var headBytes atomic.Int64
	waiting := tcpServer(t, func(c net.Conn) {
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		br := bufio.NewReaderSize(c, 4096)
		n, err := rt49aReadHead(br)
		if err != nil {
			return
		}
		headBytes.Store(int64(n))
		heads.Add(1)
		_, _ = io.Copy(io.Discard, br)
	})
	h.dial.route(ap(addrAllowed, 8081), waiting)

	// An upstream that answers with a head of many fields just under the
	// proxy's 1 MiB bound and then withholds the body.
	respHead := append([]byte("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n"), rt49aHeaderLines(maxResponseHead-4096)...)
	respHead = append(respHead, "\r\n"...)
	var answered atomic.Int64
	bigHead := tcpServer(t, func(c net.Conn) {
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		br := bufio.NewReader(c)
		if _, err := rt49aReadHead(br); err != nil {
			return
		}
		// Counted before the write: the proxy may cut the head off, and
		// close the connection, before all of it is written.
		answered.Add(1)
		if _, err := c.Write(respHead); err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, br)
	})
	h.dial.route(ap(addrAllowed, 8082), bigHead)

	// Control: an ordinary exchange through the proxy.
	{
		c := mustDialProxy(t, h.addr)
		_, _ = io.WriteString(c, "GET http://allowed.test:8080/ HTTP/1.1\r\nHost: allowed.test:8080\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("control: GET through the proxy: %v %v", resp, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != "ok\n" {
			t.Fatalf("control: body %q", body)
		}
	}

	waitCount := func(t *testing.T, c *atomic.Int64, want int64, what string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for c.Load() < want {
			if time.Now().After(deadline) {
				t.Fatalf("only %d of %d %s", c.Load(), want, what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	t.Run("request head", func(t *testing.T) {
		head := "POST http://allowed.test:8081/upload HTTP/1.1\r\nHost: allowed.test:8081\r\nContent-Length: 10\r\n"
		// Control: an ordinary POST reaches the upstream.
		base := heads.Load()
		c := mustDialProxy(t, h.addr)
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		if _, err := io.WriteString(c, head+"User-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		waitCount(t, &heads, base+1, "ordinary request heads reached the upstream")

		// The attack: a head of ~9,000 empty fields, within the byte
		// bound. Refused (431) before it is parsed; nothing goes up.
		fields := rt49aHeaderLines(maxHeaderBytes - len(head) - 64)
		base = heads.Load()
		a := mustDialProxy(t, h.addr)
		defer a.Close()
		_ = a.SetDeadline(time.Now().Add(20 * time.Second))
		if _, err := a.Write(append(append([]byte(head), fields...), "\r\n"...)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(a), nil)
		if err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("a request head of %d fields: %v %v, want 431", bytes.Count(fields, []byte("\n")), resp, err)
		}
		time.Sleep(100 * time.Millisecond)
		if heads.Load() != base {
			t.Errorf("the refused head reached the upstream")
		}
	})

	t.Run("response head", func(t *testing.T) {
		c := mustDialProxy(t, h.addr)
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		if _, err := io.WriteString(c, "GET http://allowed.test:8082/ HTTP/1.1\r\nHost: allowed.test:8082\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		// The upstream's head of ~150,000 fields is refused as it is
		// read (maxResponseFields), not held parsed: a 502.
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != http.StatusBadGateway {
			t.Fatalf("a response head of %d fields came through as %v (%v), want 502", bytes.Count(respHead, []byte("\n")), resp, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(body), "header fields") {
			t.Errorf("the 502 does not say why: %q", body)
		}
		if answered.Load() == 0 {
			t.Errorf("premise: the upstream never began its head")
		}
	})
}
