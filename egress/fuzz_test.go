package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"
)

// checkTarget asserts the invariants of a normalised target.
func checkTarget(t *testing.T, tg target) {
	t.Helper()
	if tg.port < 1 || tg.port > 65535 {
		t.Fatalf("port %d out of range", tg.port)
	}
	if tg.isIP() == (tg.name != "") {
		t.Fatalf("target is both or neither name and IP: %+v", tg)
	}
	if tg.isIP() && tg.ip.Zone() != "" {
		t.Fatalf("zoned address %s", tg.ip)
	}
	again, err := parseHost(tg.host())
	if err != nil {
		t.Fatalf("normalised host %q does not parse again: %v", tg.host(), err)
	}
	if again.name != tg.name || again.ip != tg.ip {
		t.Fatalf("normalisation not idempotent: %+v vs %+v", again, tg)
	}
	if !tg.isIP() {
		for i := 0; i < len(tg.name); i++ {
			if c := tg.name[i]; c != '.' && !nameByte(c) {
				t.Fatalf("name %q holds byte %q", tg.name, c)
			}
		}
		if _, err := netip.ParseAddr(tg.name); err == nil {
			t.Fatalf("IP literal %q kept as a name", tg.name)
		}
		last := tg.name[strings.LastIndexByte(tg.name, '.')+1:]
		if numericLabel(last) {
			t.Fatalf("name %q ends in a numeric label", tg.name)
		}
	}
}

func FuzzSOCKS5Request(f *testing.F) {
	f.Add(socksDomainReq(1, "allowed.test", 443))
	f.Add(socksDomainReq(1, "2130706433", 80))
	f.Add(socksDomainReq(1, "[::1]", 80))
	f.Add(socksDomainReq(1, "bücher.example", 443))
	f.Add(socksDomainReq(2, "a", 1))
	f.Add(socksIPReq(1, netip.MustParseAddr("192.0.2.10"), 443))
	f.Add(socksIPReq(1, netip.MustParseAddr("2001:db8::1"), 443))
	f.Add(socksIPReq(3, netip.IPv4Unspecified(), 0))
	f.Add([]byte{5, 1, 0, 3, 0, 0, 80})
	f.Add([]byte{5, 1, 1, 1, 1, 2, 3, 4, 0, 80})
	f.Add([]byte{5, 1, 0, 9})
	f.Add([]byte{4, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := readSOCKS5Request(bytes.NewReader(b))
		if err != nil {
			return
		}
		// Re-encoding the parsed request reproduces the consumed prefix.
		var enc []byte
		switch req.atyp {
		case socksAtypDomain:
			enc = socksDomainReq(req.cmd, req.host, uint16(req.port))
		case socksAtypIPv4, socksAtypIPv6:
			enc = socksIPReq(req.cmd, netip.MustParseAddr(req.host), uint16(req.port))
		default:
			t.Fatalf("accepted address type %d", req.atyp)
		}
		if !bytes.HasPrefix(b, enc) {
			t.Fatalf("re-encoded %x is not a prefix of %x", enc, b)
		}
		tg, err := req.target()
		if err != nil {
			return
		}
		checkTarget(t, tg)
	})
}

func FuzzSOCKS5Greeting(f *testing.F) {
	f.Add([]byte{5, 1, 0})
	f.Add([]byte{5, 2, 0, 2})
	f.Add([]byte{5, 0})
	f.Add([]byte{5, 255})
	f.Fuzz(func(t *testing.T, b []byte) {
		methods, err := readSOCKS5Greeting(bytes.NewReader(b))
		if err != nil {
			return
		}
		if len(methods) == 0 || len(methods) != int(b[1]) || !bytes.Equal(methods, b[2:2+len(methods)]) {
			t.Fatalf("methods %x from %x", methods, b)
		}
	})
}

func FuzzProxyRequest(f *testing.F) {
	for _, s := range []string{
		"CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n",
		"CONNECT [2001:db8::1]:443 HTTP/1.1\r\n\r\n",
		"CONNECT 2130706433:443 HTTP/1.1\r\n\r\n",
		"CONNECT /path HTTP/1.1\r\n\r\n",
		"GET http://allowed.test/x?y HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
		"GET http://allowed.test:80/ HTTP/1.1\r\nHost: ALLOWED.test.\r\n\r\n",
		"GET http://allowed.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n",
		"GET http://allowed.test/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"GET http://user:pw@allowed.test/ HTTP/1.0\r\n\r\n",
		"POST http://allowed.test/ HTTP/1.1\r\nHost: allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"POST http://allowed.test/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
		"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
		"GET https://allowed.test/ HTTP/1.1\r\n\r\n",
		"GET http://[::1]:8080/ HTTP/1.1\nHost: [::1]:8080\n\n",
		"GET http://bücher.example/ HTTP/1.1\r\n\r\n",
		"\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pr, err := readProxyRequest(bufio.NewReaderSize(bytes.NewReader(b), 4096))
		if err != nil {
			return
		}
		checkTarget(t, pr.target)
		if pr.connect {
			if pr.req.Method != "CONNECT" {
				t.Fatalf("connect flag on %s", pr.req.Method)
			}
			return
		}
		if pr.req.URL.Scheme != "http" || pr.req.URL.User != nil {
			t.Fatalf("accepted URL %s", pr.req.URL)
		}
		// What the proxy forwards names the checked target.
		fwd, err := parseHostPort(pr.req.URL.Host, 80)
		if err != nil || fwd != pr.target {
			t.Fatalf("forwarded host %q (%v) differs from target %s", pr.req.URL.Host, err, pr.target)
		}
		// A Host header in the raw request must name the same target.
		if block, err := peekHeader(bufio.NewReaderSize(bytes.NewReader(b), 4096)); err == nil {
			for _, hv := range headerValues(block, "Host") {
				if ht, err := parseHostPort(hv, 80); err != nil || ht != pr.target {
					t.Fatalf("accepted Host %q for target %s", hv, pr.target)
				}
			}
		}
	})
}

func FuzzClientHello(f *testing.F) {
	f.Add(realClientHello(f, &tls.Config{ServerName: "allowed.test", InsecureSkipVerify: true}))
	f.Add(refragment(realClientHello(f, &tls.Config{ServerName: "x.test", InsecureSkipVerify: true}), 13))
	f.Add(buildHello(sniExt("a.test")))
	f.Add(buildHello(sniExt("a.test", "b.test")))
	f.Add(buildHello(nil))
	f.Add(sslv2Hello(0x0303))
	f.Add([]byte("GET / HTTP/1.1\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		raw, hello, err := readFirstFlight(bytes.NewReader(b))
		if !bytes.HasPrefix(b, raw) {
			t.Fatalf("raw (%d bytes) is not a prefix of the %d input bytes", len(raw), len(b))
		}
		if err != nil || hello == nil {
			return
		}
		if hello.hasSNI != (hello.serverName != "") {
			t.Fatalf("SNI flag %v with name %q", hello.hasSNI, hello.serverName)
		}
		if hello.sslv2 {
			if len(raw) != 3 || raw[0]&sslv2HeaderBit == 0 || raw[2] != sslv2ClientHello || hello.hasSNI {
				t.Fatalf("SSLv2-format hello %+v parsed from %x", hello, raw)
			}
			return
		}
		if len(raw) < 5 || raw[0] != tlsRecordHandshake {
			t.Fatalf("hello parsed from %x", raw)
		}
		n := int(binary.BigEndian.Uint16(raw[3:5]))
		if n == 0 {
			t.Fatal("empty record accepted")
		}
	})
}

func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{"example.com", "*.example.com:443", "*", "*:*", "[2001:db8::1]:80",
		"192.0.2.1", "bücher.example", "*.", "a..b", "2130706433", "x:0", "[::1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePattern(s)
		if err != nil {
			return
		}
		q, err := ParsePattern(p.String())
		if err != nil || q != p {
			t.Fatalf("canonical form %q of %q does not round-trip: %+v %v", p.String(), s, q, err)
		}
	})
}

func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"example.com", "Example.COM.", "127.1", "0x7f.1", "[::1]", "::ffff:1.2.3.4",
		"例え.テスト", "1.2.3.4.5", "a_b", "xn--", "0", "[fe80::1%25x]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := parseHost(s)
		if err != nil {
			return
		}
		tg.port = 443
		checkTarget(t, tg)
	})
}
