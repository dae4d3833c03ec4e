package egress

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestRedteam56WebSocketControlFrameLength: round 55's frame reader
// (egress/wsmask.go) reads a control frame's payload whole with
// `payload := make([]byte, n)`, n being the length the upstream's frame
// head claims, up to 2^63-1 in its 127 form. RFC 6455 §5.5 caps a control
// frame at 125 bytes, and the comment says so ("at most 125 bytes"), but
// nothing checks it. A ping, pong or close frame that claims a 64-bit
// length makes the allocation panic ("makeslice: len out of range"); the
// egress package has no recover, so the panic ends the whole process
// that runs the proxy (every command's egress, the agent run) — and a
// length just under the limit asks the runtime for that much memory
// before a byte of it arrives.
//
// Attack: a WebSocket (GET /ws, Upgrade: websocket) to a host a
// credential is bound to, whose upstream, after the 101, sends a ping
// frame head "89 7f 7f ff ff ff ff ff ff ff". Here the test plays the
// upstream; the proxy runs in a child test process, which dies.
//
// Why it works: egress/wsmask.go:(*wsMask).frame: `if op >= 8 { payload
// := make([]byte, n) ...` with n from the 126/127 length forms unchecked;
// relay.switchProtocols runs it on the tunnel's goroutine, with no
// recover anywhere in egress.
//
// Severity: medium (a denial of service of the host: the agentbox process
// exits), for a bound upstream that sends a malformed control frame (a
// faulty server, one that relays raw bytes it was sent, or anyone on the
// path of a plain-HTTP WebSocket to port 80, which relayPlain reads with
// the same wsMask). A well-formed ping is passed on (the control).
//
// Found by red-team round 56. Fixed: egress/wsmask.go (a control frame over 125 bytes ends the
// stream), found while reading round 55's change once more.
func TestRedteam56WebSocketControlFrameLength(t *testing.T) {
	if os.Getenv("RT56B_WSCTL_CHILD") == "1" {
		rt56bWSControlChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRedteam56WebSocketControlFrameLength$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "RT56B_WSCTL_CHILD=1")
	out, err := cmd.CombinedOutput()
	s := string(out)
	if !strings.Contains(s, "RT56B-CONTROL-OK") {
		t.Fatalf("premise/control: a well-formed ping did not pass through the proxy (child err %v):\n%s", err, rt56bTail(s))
	}
	if !strings.Contains(s, "RT56B-PREMISE-101") {
		t.Fatalf("premise: the attack's 101 did not reach the client (child err %v):\n%s", err, rt56bTail(s))
	}
	if strings.Contains(s, "panic:") || strings.Contains(s, "fatal error:") || !strings.Contains(s, "RT56B-PROXY-ALIVE") {
		t.Errorf("the proxy's process died on a control frame claiming a 64-bit length (child err %v):\n%s", err, rt56bTail(s))
	}
}

func rt56bTail(s string) string {
	if i := strings.Index(s, "panic:"); i >= 0 {
		return s[i:min(len(s), i+600)]
	}
	return s[max(0, len(s)-1500):]
}

// rt56bWSControlChild runs the proxy and the attack in the child.
func rt56bWSControlChild(t *testing.T) {
	const host = "rt56b-wsctl.test"
	e, ph, _ := rt52aEchoEnv(t, host, "203.0.113.164", "sk-live-56WSCTL0123456789abcdef", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/plain" {
			_, _ = io.WriteString(w, "alive\n")
			return
		}
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		h := sha1.Sum([]byte(r.Header.Get("Sec-Websocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
			base64.StdEncoding.EncodeToString(h[:]))
		if r.URL.Path == "/good" {
			rt55cFrame(brw, true, 0x9, "ping!")
		} else {
			// Once the client, having read the 101, says so.
			_ = brw.Flush()
			var b [1]byte
			if _, err := io.ReadFull(brw, b[:]); err != nil {
				return
			}
			_, _ = brw.Write([]byte{0x89, 0x7f, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
		}
		_ = brw.Flush()
		_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
		_, _ = io.Copy(io.Discard, conn)
	})
	open := func(path string) (io.ReadWriteCloser, *bufio.Reader) {
		tc, br := e.interceptedConn(t, host+":443")
		fmt.Fprintf(tc, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer %s\r\n\r\n", path, host, ph)
		_ = tc.SetReadDeadline(time.Now().Add(3 * time.Second))
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil || resp.StatusCode != 101 {
			t.Fatalf("upgrade %s: %v %v", path, resp, err)
		}
		return tc, br
	}
	c, br := open("/good")
	var f [7]byte
	if _, err := io.ReadFull(br, f[:]); err != nil || string(f[2:]) != "ping!" || f[0] != 0x89 {
		t.Fatalf("control: ping %q %v", f, err)
	}
	c.Close()
	fmt.Println("RT56B-CONTROL-OK")
	c, br = open("/bad")
	fmt.Println("RT56B-PREMISE-101")
	_, _ = c.Write([]byte{0x8a, 0x80, 0, 0, 0, 0}) // a masked empty pong
	_, _ = io.ReadAll(br)
	c.Close()
	time.Sleep(200 * time.Millisecond)
	resp, body, _ := doRaw(t, e, host, "/plain", nil)
	if resp.StatusCode == 200 && body == "alive\n" {
		fmt.Println("RT56B-PROXY-ALIVE")
	}
}
