package egress

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net/http"
	"testing"
)

// hrrServer is an OpenSSL (Python ssl) TLS server on loopback that reports
// every server name its servername callback is called with, as a shared
// front end routing by SNI would see them.
const hrrServer = `
import socket, ssl, sys, threading
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
def cb(s, name, c):
    print("SNI", name, flush=True)
ctx.sni_callback = cb
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen()
print("LISTEN", ls.getsockname()[1], flush=True)
def serve(c):
    try:
        c.settimeout(3)
        ctx.wrap_socket(c, server_side=True).close()
    except Exception:
        pass
while True:
    c, _ = ls.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
`

// tls13Hello builds a TLS 1.3 ClientHello record naming sni, offering
// secp256r1 and x25519, with the given key_share entries.
func tls13Hello(sni string, keyShares []byte) []byte {
	ext := func(typ uint16, data []byte) []byte {
		return append(binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, typ), uint16(len(data))), data...)
	}
	var exts []byte
	exts = append(exts, sniExt(sni)...)
	exts = append(exts, ext(0x2b, []byte{2, 3, 4})...)                      // supported_versions: TLS 1.3
	exts = append(exts, ext(0x0a, []byte{0, 4, 0x00, 0x17, 0x00, 0x1d})...) // supported_groups
	exts = append(exts, ext(0x0d, []byte{0, 4, 0x04, 0x03, 0x08, 0x04})...) // signature_algorithms
	exts = append(exts, ext(0x33, append(binary.BigEndian.AppendUint16(nil, uint16(len(keyShares))), keyShares...))...)
	body := []byte{3, 3}
	body = append(body, bytes.Repeat([]byte{0x11}, 32)...) // random (the same in both hellos)
	body = append(body, 32)
	body = append(body, bytes.Repeat([]byte{0x22}, 32)...) // legacy_session_id
	body = append(body, 0, 2, 0x13, 0x01, 1, 0)
	body = append(body, byte(len(exts)>>8), byte(len(exts)))
	body = append(body, exts...)
	hs := append([]byte{1, 0, byte(len(body) >> 8), byte(len(body))}, body...)
	return append([]byte{0x16, 3, 1, byte(len(hs) >> 8), byte(len(hs))}, hs...)
}

// TestRedteam27HelloRetrySNI attacks the tunnel's SNI check with a TLS 1.3
// HelloRetryRequest flow. The proxy inspects only the client's first
// flight: the first ClientHello names allowed.test (and offers no key
// share, so the server must answer with a HelloRetryRequest), and the
// tunnel is spliced from then on. The second ClientHello, still in the
// clear, names evil.test. RFC 8446 lets a server reject a changed hello,
// and Go's crypto/tls does (illegalClientHelloChange compares serverName),
// but OpenSSL 3.0 does not: it runs the servername callback again with the
// second hello's name and answers with a ServerHello, so a front end built
// on OpenSSL (nginx, HAProxy, Python, Node...) routes the connection by a
// name the proxy never saw: domain fronting past the SNI check to a host
// the policy denies.
//
// Severity: medium (fronting to a denied host on a shared OpenSSL front
// end; the bytes still go only to the allowed host's address).
// Fix: keep inspecting a tunnel's client bytes after the first ClientHello
// while the handshake is in the clear: when the server answers with a
// HelloRetryRequest (a ServerHello whose random is the HRR constant),
// parse the second ClientHello like the first and refuse it unless its
// SNI matches (or unless it is byte-identical in server_name to the first).
// Fixed: a spliced TLS tunnel reads the head of the server's ServerHello
// before splicing (spliceTLS, hrr.go); on a HelloRetryRequest it reads the
// client's second flight (a CCS, then the second ClientHello, also when
// sent ahead) and refuses it by the first hello's rules (helloRefusal).
func TestRedteam27HelloRetrySNI(t *testing.T) {
	port, seen := opensslFront(t)

	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	h.dial.route(ap(addrAllowed, 443), "127.0.0.1:"+port)

	// flow sends hello1 and, on a HelloRetryRequest, a CCS and hello2. It
	// returns the first bytes of the server's answer to hello2.
	flow := func(sni1, sni2 string) (hrr bool, answer []byte) {
		c := mustDialProxy(t, h.addr)
		_, _ = io.WriteString(c, "CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		_, _ = c.Write(tls13Hello(sni1, nil))
		var hdr [5]byte
		if _, err := io.ReadFull(br, hdr[:]); err != nil || hdr[0] != 0x16 {
			return false, nil
		}
		rec := make([]byte, int(hdr[3])<<8|int(hdr[4]))
		if _, err := io.ReadFull(br, rec); err != nil {
			return false, nil
		}
		hrrRandom := []byte{0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91}
		if len(rec) < 38 || rec[0] != 2 || !bytes.Equal(rec[6:22], hrrRandom) {
			t.Fatalf("no HelloRetryRequest: % x", rec[:min(len(rec), 40)])
		}
		share := append([]byte{0x00, 0x1d, 0x00, 0x20}, bytes.Repeat([]byte{9}, 32)...)
		_, _ = c.Write(append([]byte{0x14, 3, 3, 0, 1, 1}, tls13Hello(sni2, share)...))
		for {
			buf := make([]byte, 6)
			n, _ := io.ReadFull(br, buf)
			if n == 6 && buf[0] == 0x14 { // the server's compatibility CCS
				continue
			}
			return true, buf[:n]
		}
	}

	// Controls: a first hello naming evil.test is refused before any byte
	// goes upstream; an honest HRR flow works.
	c := mustDialProxy(t, h.addr)
	_, _ = io.WriteString(c, "CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	_, _ = c.Write(tls13Hello("evil.test", nil))
	if got := seen(); len(got) != 0 {
		t.Fatalf("control: a first hello naming evil.test reached the server: %q", got)
	}
	if hrr, ans := flow("allowed.test", "allowed.test"); !hrr || len(ans) < 6 || ans[0] != 0x16 || ans[5] != 2 {
		t.Fatalf("control: honest HRR flow: hrr %v, answer % x", hrr, ans)
	}
	if got := seen(); len(got) != 2 || got[1] != "allowed.test" {
		t.Fatalf("control: server saw names %q", got)
	}

	// Attack: the second hello names evil.test.
	hrr, ans := flow("allowed.test", "evil.test")
	got := seen()
	for _, n := range got {
		if n == "evil.test" {
			t.Errorf("ESCAPE: after a HelloRetryRequest the second ClientHello named evil.test through the "+
				"tunnel to allowed.test; the OpenSSL front end's servername callback saw %q and answered % x (hrr %v)",
				got, ans, hrr)
		}
	}
}
