package egress

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestRedteam26SSLv2HelloNoSNI attacks the tunnel's "no server name" check
// with a ClientHello in the SSLv2-compatible record format (RFC 5246
// appendix E.2: a two-byte header with the top bit set, message type 1,
// version 3.x). The proxy refuses a TLS-record ClientHello that names no
// server (RuleSNIMismatch: "a front end would pick the host from the
// encrypted request"), but readFirstFlight only parses hellos whose first
// byte is 0x16: a first byte of 0x80 is taken for "not TLS", the request
// line check calls it "not HTTP", and the bytes are spliced upstream
// unchecked. Servers that still take the SSLv2-format hello (OpenSSL
// negotiates TLS 1.0-1.2 from one: 3.0.19 answered this test's hello with
// a ServerHello in a hand-run check) then serve a connection that carried no
// SNI at all, and a shared front end picks the virtual host from its
// default or from the Host inside the encrypted request: the same
// fronting the SNI-less refusal exists to stop.
//
// Severity: low (needs a front end that accepts SSLv2-format hellos and
// routes SNI-less connections by the encrypted Host; the bytes reach the
// allowed host's address, no other).
// Fix: in readFirstFlight, treat a first byte with the top bit set whose
// third byte is 1 (SSLv2 CLIENT-HELLO) and version 3.x as a ClientHello
// without SNI and refuse it for a name target (or refuse it outright).
// Fixed: readFirstFlight reads a first byte with the top bit set on to the
// message type (readSSLv2Hello) and returns an SSLv2-format CLIENT-HELLO, of
// any version, as a hello without SNI, which the tunnel refuses to a name
// target (rule "sni-mismatch", reason "... SSLv2-compatible format ...").
func TestRedteam26SSLv2HelloNoSNI(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	received := make(chan int, 4)
	upstream := tcpServer(t, func(c net.Conn) {
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		n, _ := io.Copy(io.Discard, c)
		received <- int(n)
	})
	h.dial.route(ap(addrAllowed, 443), upstream)

	send := func(hello []byte) int {
		c := mustDialProxy(t, h.addr)
		io.WriteString(c, "CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		if _, err := c.Write(hello); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-received:
			return n
		case <-time.After(3 * time.Second):
			t.Fatal("upstream never reported")
			return -1
		}
	}

	// Control: a TLS-record ClientHello without SNI is refused, nothing
	// goes upstream.
	if n := send(realClientHello(t, &tls.Config{InsecureSkipVerify: true})); n != 0 {
		t.Fatalf("control: upstream received %d bytes of an SNI-less TLS-record hello", n)
	}

	// Attack: the same (no SNI) in the SSLv2-compatible format.
	body := []byte{
		0x01,       // CLIENT-HELLO
		0x03, 0x03, // TLS 1.2
		0x00, 0x06, // cipher_spec_length
		0x00, 0x00, // session_id_length
		0x00, 0x10, // challenge_length
		0x00, 0xc0, 0x2f, // ECDHE_RSA_WITH_AES_128_GCM_SHA256
		0x00, 0x00, 0x2f, // RSA_WITH_AES_128_CBC_SHA
	}
	for i := 0; i < 16; i++ {
		body = append(body, byte(i+1))
	}
	hello := append([]byte{0x80 | byte(len(body)>>8), byte(len(body))}, body...)
	if n := send(hello); n != 0 {
		t.Errorf("ESCAPE: upstream allowed.test received %d bytes of an SSLv2-format ClientHello without SNI "+
			"(a TLS-record hello without SNI is refused)", n)
	}
}
