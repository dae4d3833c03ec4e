package egress

import (
	"bytes"
	"crypto/tls"
	"errors"
	"net"
	"testing"
	"time"
)

// realClientHello captures the first flight crypto/tls sends for cfg.
func realClientHello(t testing.TB, cfg *tls.Config) []byte {
	t.Helper()
	c1, c2 := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = tls.Client(c1, cfg).Handshake()
	}()
	_ = c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	raw, hello, err := readFirstFlight(c2)
	if err != nil || hello == nil {
		t.Fatalf("reading a real ClientHello: %v (hello %v)", err, hello)
	}
	_ = c2.Close()
	_ = c1.Close()
	<-done
	return raw
}

// refragment splits a single-record ClientHello into records of at most n
// payload bytes each, as TLS permits.
func refragment(raw []byte, n int) []byte {
	payload := raw[5:]
	var out []byte
	for len(payload) > 0 {
		k := min(n, len(payload))
		out = append(out, 0x16, raw[1], raw[2], byte(k>>8), byte(k))
		out = append(out, payload[:k]...)
		payload = payload[k:]
	}
	return out
}

// buildHello assembles a ClientHello record from extensions.
func buildHello(exts []byte) []byte {
	body := []byte{0x03, 0x03}
	body = append(body, make([]byte, 32)...) // random
	body = append(body, 0)                   // session id
	body = append(body, 0, 2, 0x13, 0x01)    // one cipher suite
	body = append(body, 1, 0)                // null compression
	body = append(body, byte(len(exts)>>8), byte(len(exts)))
	body = append(body, exts...)
	hs := append([]byte{1, 0, byte(len(body) >> 8), byte(len(body))}, body...)
	return append([]byte{0x16, 0x03, 0x01, byte(len(hs) >> 8), byte(len(hs))}, hs...)
}

// sslv2Hello builds a ClientHello in the SSLv2-compatible format (RFC 5246
// appendix E.2) offering version v: it has no extensions, so no SNI.
func sslv2Hello(v uint16) []byte {
	body := []byte{1, byte(v >> 8), byte(v), 0, 6, 0, 0, 0, 16}
	body = append(body, 0x00, 0xc0, 0x2f, 0x00, 0x00, 0x2f) // two cipher specs
	body = append(body, make([]byte, 16)...)                // challenge
	return append([]byte{0x80 | byte(len(body)>>8), byte(len(body))}, body...)
}

func sniExt(names ...string) []byte {
	var list []byte
	for _, n := range names {
		list = append(list, 0, byte(len(n)>>8), byte(len(n)))
		list = append(list, n...)
	}
	data := append([]byte{byte(len(list) >> 8), byte(len(list))}, list...)
	return append([]byte{0, 0, byte(len(data) >> 8), byte(len(data))}, data...)
}

func TestReadFirstFlight(t *testing.T) {
	withSNI := realClientHello(t, &tls.Config{ServerName: "allowed.test", InsecureSkipVerify: true})
	noSNI := realClientHello(t, &tls.Config{InsecureSkipVerify: true})
	tests := []struct {
		name    string
		in      []byte
		sni     string // "" with hasSNI false when wantSNI is false
		wantSNI bool
		sslv2   bool // an SSLv2-format hello: raw is its first three bytes
		notTLS  bool
		bad     bool
	}{
		{name: "real hello", in: withSNI, sni: "allowed.test", wantSNI: true},
		{name: "real hello without SNI", in: noSNI},
		{name: "fragmented into 7-byte records", in: refragment(withSNI, 7), sni: "allowed.test", wantSNI: true},
		{name: "fragmented into 1-byte records", in: refragment(withSNI, 1), sni: "allowed.test", wantSNI: true},
		{name: "built hello", in: buildHello(sniExt("Front.Example.")), sni: "Front.Example.", wantSNI: true},
		{name: "no extensions", in: buildHello(nil)},
		{name: "plain HTTP", in: []byte("GET / HTTP/1.1\r\n\r\n"), notTLS: true},
		{name: "SSH banner", in: []byte("SSH-2.0-x\r\n"), notTLS: true},
		{name: "control byte then text", in: []byte{0x15, 'x', 'y'}, notTLS: true},
		{name: "SSLv2-format hello for TLS 1.2", in: sslv2Hello(0x0303), sslv2: true},
		{name: "SSLv2-format hello for SSL 3.0", in: sslv2Hello(0x0300), sslv2: true},
		{name: "SSLv2-format hello for SSL 2.0", in: sslv2Hello(0x0002), sslv2: true},
		{name: "SSLv2-format hello for a future version", in: sslv2Hello(0x0400), sslv2: true},
		{name: "SSLv2-format hello of the longest length", in: []byte{0xff, 0xff, 1, 3, 1}, sslv2: true},
		{name: "SSLv2-format hello's first three bytes", in: []byte{0x80, 0x21, 1}, sslv2: true},
		{name: "SSLv2 server hello", in: []byte{0x80, 0x21, 4, 0, 1}, notTLS: true},
		{name: "memcached binary get", in: []byte{0x80, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 3}, notTLS: true},
		{name: "UTF-8 text", in: []byte("é est"), notTLS: true},
		{name: "a high byte, then the end", in: []byte{0x80}, notTLS: true},
		{name: "two bytes, then the end", in: []byte{0x80, 0x21}, notTLS: true},
		{name: "warning alert before the hello", in: append([]byte{0x15, 3, 3, 0, 2, 1, 90}, withSNI...), bad: true},
		{name: "change cipher spec before the hello", in: append([]byte{0x14, 3, 3, 0, 1, 1}, withSNI...), bad: true},
		{name: "application data first", in: []byte{0x17, 3, 3, 0, 1, 0}, bad: true},
		{name: "warning alert of version 0.0 before the hello", in: append([]byte{0x15, 0, 0, 0, 2, 1, 40}, withSNI...), bad: true},
		{name: "warning alert of version 15.255 (Go reads below 16.0)", in: []byte{0x15, 0x0f, 0xff, 0, 2, 1, 40}, bad: true},
		{name: "alert of a text version (Java reads 3.0 and up)", in: []byte{0x15, 'x', 'y', 0, 2, 1, 40}, bad: true},
		{name: "change cipher spec of version 1.0", in: []byte{0x14, 1, 0, 0, 1, 1}, bad: true},
		{name: "heartbeat of version 0.2", in: []byte{0x18, 0, 2, 0, 3, 1, 0, 0}, bad: true},
		{name: "alert header, nothing after", in: []byte{0x15, 0, 0, 0, 2}, bad: true},
		{name: "control byte, four bytes, then the end", in: []byte{0x17, 0, 1, 0}, notTLS: true},
		{name: "control byte, then the end", in: []byte{0x18}, notTLS: true},
		{name: "handshake record of version 0.0", in: []byte{0x16, 0, 0, 0, 4, 1, 0, 0, 0}, bad: true},
		{name: "two host names", in: buildHello(sniExt("a.test", "b.test")), bad: true},
		{name: "empty host name", in: buildHello(sniExt("")), bad: true},
		{name: "duplicate SNI extension", in: buildHello(append(sniExt("a.test"), sniExt("b.test")...)), bad: true},
		{name: "record type changes", in: func() []byte {
			b := refragment(withSNI, 20)
			b[25] = 0x17
			return b
		}(), bad: true},
		{name: "not a ClientHello", in: []byte{0x16, 3, 1, 0, 4, 2, 0, 0, 0}, bad: true},
		{name: "record version 2", in: []byte{0x16, 2, 0, 0, 4, 1, 0, 0, 0}, bad: true},
		{name: "zero-length record", in: []byte{0x16, 3, 1, 0, 0}, bad: true},
		{name: "oversized record", in: []byte{0x16, 3, 1, 0xff, 0xff}, bad: true},
		{name: "truncated", in: withSNI[:len(withSNI)-10], bad: true},
		{name: "bad fixed fields", in: []byte{0x16, 3, 1, 0, 6, 1, 0, 0, 2, 3, 3}, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, hello, err := readFirstFlight(bytes.NewReader(tt.in))
			switch {
			case tt.bad:
				if err == nil {
					t.Fatalf("accepted malformed input: %+v", hello)
				}
				return
			case err != nil:
				t.Fatal(err)
			case tt.notTLS:
				if hello != nil || len(raw) == 0 || !bytes.HasPrefix(tt.in, raw) {
					t.Fatalf("non-TLS: raw %q hello %+v", raw, hello)
				}
				return
			case hello == nil:
				t.Fatalf("no hello read from raw %x", raw)
			}
			want := tt.in
			if tt.sslv2 {
				want = tt.in[:3] // no more is needed to refuse it
			}
			if !bytes.Equal(raw, want) {
				t.Errorf("raw (%d bytes) differs from the expected %d bytes", len(raw), len(want))
			}
			if hello.sslv2 != tt.sslv2 {
				t.Errorf("sslv2 = %v, want %v", hello.sslv2, tt.sslv2)
			}
			if hello.hasSNI != tt.wantSNI || hello.serverName != tt.sni {
				t.Errorf("SNI = %q (%v), want %q (%v)", hello.serverName, hello.hasSNI, tt.sni, tt.wantSNI)
			}
		})
	}
}

func TestReadFirstFlightTruncatedIsConnError(t *testing.T) {
	withSNI := realClientHello(t, &tls.Config{ServerName: "allowed.test", InsecureSkipVerify: true})
	_, _, err := readFirstFlight(bytes.NewReader(withSNI[:30]))
	if !errors.Is(err, errBadHello) || !isConnError(err) {
		t.Fatalf("truncated hello: %v (bad hello %v, conn error %v)", err, errors.Is(err, errBadHello), isConnError(err))
	}
}

func TestSNIMatches(t *testing.T) {
	name := target{name: "allowed.test", port: 443}
	ip, _ := parseHostPort("192.0.2.10:443", 0)
	tests := []struct {
		sni  string
		t    target
		want bool
	}{
		{"allowed.test", name, true},
		{"ALLOWED.Test", name, true},
		{"allowed.test.", name, true},
		{"evil.test", name, false},
		{"www.allowed.test", name, false},
		{"allowed.test\x00.evil.test", name, false},
		{"allowed.test..", name, false},
		{"192.0.2.10", ip, false},
	}
	for _, tt := range tests {
		if got := sniMatches(tt.sni, tt.t); got != tt.want {
			t.Errorf("sniMatches(%q, %s) = %v, want %v", tt.sni, tt.t, got, tt.want)
		}
	}
}
