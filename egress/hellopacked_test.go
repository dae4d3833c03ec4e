package egress

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// handshakeRecord wraps handshake message bytes in one TLS record.
func handshakeRecord(msgs ...[]byte) []byte {
	b := bytes.Join(msgs, nil)
	return append([]byte{0x16, 3, 3, byte(len(b) >> 8), byte(len(b))}, b...)
}

// TestHelloEndsItsRecord: a ClientHello must end the record that ends it;
// bytes after it there (another hello, or its start) are refused, in the
// first flight and in the second after a HelloRetryRequest. Bytes in the
// records after the hello's are not the hello's to judge.
func TestHelloEndsItsRecord(t *testing.T) {
	h1 := buildHello(sniExt("allowed.test"))
	h2 := buildHello(sniExt("evil.test"))
	m1, m2 := h1[5:], h2[5:]
	split := len(m1) - 7 // the hello's last record starts here
	tests := []struct {
		name string
		in   []byte
		read int // bytes read, when not all of in
		bad  bool
	}{
		{name: "hello alone", in: h1},
		{name: "hello in 5-byte records", in: refragment(h1, 5)},
		{name: "hello, then another record", in: append(append([]byte{}, h1...), h2...), read: len(h1)},
		{name: "two hellos in one record", in: handshakeRecord(m1, m2), bad: true},
		{name: "a hello and the start of another", in: handshakeRecord(m1, m2[:10]), bad: true},
		{name: "a hello and one more byte", in: handshakeRecord(m1, []byte{0}), bad: true},
		{name: "packed behind a fragmented hello",
			in: append(handshakeRecord(m1[:split]), handshakeRecord(m1[split:], m2)...), bad: true},
	}
	readers := map[string]func(io.Reader) ([]byte, *clientHello, error){
		"first":  readFirstFlight,
		"second": readRetryFlight,
	}
	for rname, read := range readers {
		for _, tt := range tests {
			t.Run(rname+"/"+tt.name, func(t *testing.T) {
				raw, h, err := read(bytes.NewReader(tt.in))
				if tt.bad {
					if err == nil || !errors.Is(err, errBadHello) || !strings.Contains(err.Error(), "after the ClientHello") {
						t.Fatalf("err %v, hello %+v; want a refusal of the bytes after the hello", err, h)
					}
					return
				}
				if err != nil || h == nil || h.serverName != "allowed.test" {
					t.Fatalf("err %v, hello %+v", err, h)
				}
				want := tt.in
				if tt.read > 0 {
					want = tt.in[:tt.read]
				}
				if !bytes.Equal(raw, want) {
					t.Fatalf("read %d bytes, want the first %d", len(raw), len(want))
				}
			})
		}
	}
}

// TestPackedHelloNeverReachesUpstream: a record holding a ClientHello and
// bytes after it (a second hello naming another host, or its start) is
// refused before any of it goes upstream, as the first hello and as the
// second after a HelloRetryRequest; the upstream, a plain TCP server,
// records all it reads.
func TestPackedHelloNeverReachesUpstream(t *testing.T) {
	allowed, evil := tls13Hello("allowed.test", nil)[5:], tls13Hello("evil.test", nil)[5:]
	tests := []struct {
		name  string
		hrr   bool   // the server answers the first hello with a HelloRetryRequest
		send  []byte // after the first hello when hrr
		extra string // what the decision's reason must say beyond the rule
	}{
		{name: "two hellos in one record", send: handshakeRecord(allowed, evil)},
		{name: "a hello and the start of another", send: handshakeRecord(allowed, evil[:10])},
		{name: "a third hello packed behind the second", hrr: true,
			send: append(append([]byte{}, ccsRecord...), handshakeRecord(allowed, evil)...), extra: "HelloRetryRequest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
			first := handshakeRecord(allowed)
			got := make(chan []byte, 1)
			h.dial.route(ap(addrAllowed, 443), tcpServer(t, func(c net.Conn) {
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				var seen []byte
				if tt.hrr {
					seen = make([]byte, len(first))
					if _, err := io.ReadFull(c, seen); err != nil || !bytes.Equal(seen, first) {
						got <- seen
						return
					}
					_, _ = c.Write(append(serverHello(true), ccsRecord...))
				}
				rest, _ := io.ReadAll(c)
				got <- append(seen, rest...)
			}))
			c, br := connectTunnel(t, h.addr)
			if tt.hrr {
				_, _ = c.Write(first)
				answer := make([]byte, len(serverHello(true)))
				if _, err := io.ReadFull(br, answer); err != nil {
					t.Fatalf("no HelloRetryRequest: %v", err)
				}
			}
			_, _ = c.Write(tt.send)
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if rest, err := io.ReadAll(br); !bytes.HasSuffix(rest, tlsAlert) {
				t.Errorf("the client read % x, %v, not the access_denied alert", rest, err)
			}
			want := []byte{}
			if tt.hrr {
				want = first
			}
			select {
			case b := <-got:
				if !bytes.Equal(b, want) {
					t.Errorf("the upstream read %d bytes (naming evil.test: %v), want only %d",
						len(b), bytes.Contains(b, []byte("evil.test")), len(want))
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the upstream was never closed")
			}
			ds := h.sink.waitFor(t, 2)
			if ds[1].Allowed || ds[1].Rule != RuleBadTLS || !strings.Contains(ds[1].Reason, "after the ClientHello") ||
				!strings.Contains(ds[1].Reason, tt.extra) {
				t.Errorf("decisions %+v", ds)
			}
		})
	}
}

// TestRealHelloThroughProxy is the control of the two tests above: Go's
// TLS client, with and without a HelloRetryRequest, and at TLS 1.2,
// completes its handshake through the proxy and exchanges data.
func TestRealHelloThroughProxy(t *testing.T) {
	tests := []struct {
		name         string
		serverCurves []tls.CurveID
		clientCurves []tls.CurveID
		maxVersion   uint16
		wantHRR      bool
	}{
		{name: "TLS 1.3"},
		{name: "TLS 1.3 with a HelloRetryRequest", serverCurves: []tls.CurveID{tls.CurveP256},
			clientCurves: []tls.CurveID{tls.X25519, tls.CurveP256}, wantHRR: true},
		{name: "TLS 1.2", maxVersion: tls.VersionTLS12},
	}
	cert, pool := testCert(t, "allowed.test")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
			h.dial.route(ap(addrAllowed, 443), tcpServer(t, func(c net.Conn) {
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				s := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}, CurvePreferences: tt.serverCurves})
				b := make([]byte, 5)
				if _, err := io.ReadFull(s, b); err == nil {
					_, _ = s.Write(append([]byte("echo:"), b...))
				}
				_ = s.Close()
			}))
			c, br := connectTunnel(t, h.addr)
			tc := tls.Client(&bufConn{Conn: c, r: br}, &tls.Config{ServerName: "allowed.test", RootCAs: pool,
				CurvePreferences: tt.clientCurves, MaxVersion: tt.maxVersion})
			if _, err := tc.Write([]byte("hello")); err != nil {
				t.Fatalf("handshake through the proxy: %v (decisions %+v)", err, h.sink.all())
			}
			b := make([]byte, 10)
			if _, err := io.ReadFull(tc, b); err != nil || string(b) != "echo:hello" {
				t.Fatalf("read %q, %v", b, err)
			}
			if got := tc.ConnectionState().HelloRetryRequest; got != tt.wantHRR {
				t.Errorf("HelloRetryRequest %v, want %v", got, tt.wantHRR)
			}
			_ = tc.Close()
		})
	}
}
