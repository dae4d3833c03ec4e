package egress

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serverHello builds a ServerHello record (a HelloRetryRequest when hrr)
// for TLS 1.3 with suite TLS_AES_128_GCM_SHA256.
func serverHello(hrr bool) []byte {
	random := bytes.Repeat([]byte{0x5a}, 32)
	if hrr {
		random = helloRetryRandom[:]
	}
	body := append([]byte{3, 3}, random...)
	body = append(body, 0, 0x13, 0x01, 0)          // session id, suite, compression
	body = append(body, 0, 6, 0, 0x2b, 0, 2, 3, 4) // supported_versions: TLS 1.3
	hs := append([]byte{tlsHandshakeServerHello, 0, byte(len(body) >> 8), byte(len(body))}, body...)
	return append([]byte{0x16, 3, 3, byte(len(hs) >> 8), byte(len(hs))}, hs...)
}

var ccsRecord = []byte{0x14, 3, 3, 0, 1, 1}

func TestReadServerHelloHead(t *testing.T) {
	hrr, plain := serverHello(true), serverHello(false)
	head := 5 + serverHelloHead
	tests := []struct {
		name    string
		in      []byte
		wantRaw int // bytes read; -1 for all of in
		hrr     bool
		err     bool
	}{
		{name: "HelloRetryRequest", in: hrr, wantRaw: head, hrr: true},
		{name: "HelloRetryRequest then CCS", in: append(append([]byte{}, hrr...), ccsRecord...), wantRaw: head, hrr: true},
		{name: "HelloRetryRequest in 1-byte records", in: refragment(hrr, 1), wantRaw: 6 * serverHelloHead, hrr: true},
		{name: "HelloRetryRequest in 7-byte records", in: refragment(hrr, 7), wantRaw: 6*5 + serverHelloHead, hrr: true},
		{name: "ServerHello", in: plain, wantRaw: head},
		{name: "ServerHello in 1-byte records", in: refragment(plain, 1), wantRaw: 6 * serverHelloHead},
		{name: "alert", in: []byte{0x15, 3, 3, 0, 2, 2, 40}, wantRaw: 5},
		{name: "not TLS", in: []byte("SSH-2.0-OpenSSH_9.6\r\n"), wantRaw: 5},
		{name: "another handshake message", in: []byte{0x16, 3, 3, 0, 4, 0x0b, 0, 0, 0}, wantRaw: 9},
		{name: "zero-length record", in: []byte{0x16, 3, 3, 0, 0, 0x16, 3, 3}, wantRaw: 5},
		{name: "ends in the header", in: []byte{0x16, 3}, wantRaw: -1, err: true},
		{name: "ends in the random", in: hrr[:30], wantRaw: -1, err: true},
		{name: "nothing", in: nil, wantRaw: -1, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, hrr, err := readServerHelloHead(bytes.NewReader(tt.in))
			if (err != nil) != tt.err || hrr != tt.hrr {
				t.Fatalf("hrr %v, err %v; want hrr %v, error %v", hrr, err, tt.hrr, tt.err)
			}
			want := tt.wantRaw
			if want < 0 {
				want = len(tt.in)
			}
			if !bytes.Equal(raw, tt.in[:want]) {
				t.Errorf("read %d bytes, want the first %d", len(raw), want)
			}
		})
	}
}

func TestReadRetryFlight(t *testing.T) {
	hello := buildHello(sniExt("allowed.test"))
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	tests := []struct {
		name string
		in   []byte
		sni  string
		bad  bool
	}{
		{name: "CCS then hello", in: cat(ccsRecord, hello), sni: "allowed.test"},
		{name: "hello alone", in: hello, sni: "allowed.test"},
		{name: "CCS then hello in 5-byte records", in: cat(ccsRecord, refragment(hello, 5)), sni: "allowed.test"},
		{name: "CCS of version 3.1", in: cat([]byte{0x14, 3, 1, 0, 1, 1}, hello), sni: "allowed.test"},
		{name: "hello without SNI", in: buildHello(nil)},
		{name: "CCS, early data, hello", in: cat(ccsRecord, []byte{0x17, 3, 3, 0, 3, 7, 7, 7}, hello), sni: "allowed.test"},
		{name: "early data, CCS, hello", in: cat([]byte{0x17, 3, 3, 0, 1, 7}, ccsRecord, hello), sni: "allowed.test"},
		{name: "the most early data", in: cat(bytes.Repeat(cat([]byte{0x17, 3, 3, 0x40, 0}, make([]byte, 1<<14)), maxSkippedEarlyData>>14), hello),
			sni: "allowed.test"},
		{name: "too much early data", in: cat(bytes.Repeat(cat([]byte{0x17, 3, 3, 0x40, 0}, make([]byte, 1<<14)), maxSkippedEarlyData>>14),
			[]byte{0x17, 3, 3, 0, 1, 7}, hello), bad: true},
		{name: "empty early data record", in: cat([]byte{0x17, 3, 3, 0, 0}, hello), bad: true},
		{name: "early data of version 0.0", in: cat([]byte{0x17, 0, 0, 0, 1, 7}, hello), bad: true},
		{name: "two CCS", in: cat(ccsRecord, ccsRecord, hello), bad: true},
		{name: "CCS of two bytes", in: cat([]byte{0x14, 3, 3, 0, 2, 1, 1}, hello), bad: true},
		{name: "CCS of another value", in: cat([]byte{0x14, 3, 3, 0, 1, 2}, hello), bad: true},
		{name: "CCS of version 0.0", in: cat([]byte{0x14, 0, 0, 0, 1, 1}, hello), bad: true},
		{name: "alert first", in: cat([]byte{0x15, 3, 3, 0, 2, 1, 40}, hello), bad: true},
		{name: "CCS then alert", in: cat(ccsRecord, []byte{0x15, 3, 3, 0, 2, 1, 40}, hello), bad: true},
		{name: "not a ClientHello", in: cat(ccsRecord, []byte{0x16, 3, 3, 0, 4, 2, 0, 0, 0}), bad: true},
		{name: "two host names", in: cat(ccsRecord, buildHello(sniExt("a.test", "b.test"))), bad: true},
		{name: "truncated", in: cat(ccsRecord, hello[:20]), bad: true},
		{name: "CCS alone", in: ccsRecord, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, h, err := readRetryFlight(bytes.NewReader(tt.in))
			switch {
			case tt.bad:
				if err == nil {
					t.Fatalf("accepted: %+v", h)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if !bytes.Equal(raw, tt.in) {
				t.Errorf("raw (%d bytes) is not the input (%d bytes)", len(raw), len(tt.in))
			}
			if h.serverName != tt.sni || h.hasSNI != (tt.sni != "") {
				t.Errorf("SNI %q (%v), want %q", h.serverName, h.hasSNI, tt.sni)
			}
		})
	}
}

// TestHelloRetryTunnel: a server answering with a HelloRetryRequest gets
// the client's second ClientHello only if it passes the first one's
// checks, also when the client sent it ahead with its CONNECT, and also
// the "no SNI" rule of a target named by its address.
func TestHelloRetryTunnel(t *testing.T) {
	ech := append(sniExt("allowed.test"), 0xfe, 0x0d, 0, 1, 0)
	tests := []struct {
		name      string
		target    string // allowed, CONNECTed
		hello1    []byte
		hello2    []byte
		ahead     bool   // CONNECT, both hellos and the CCS in one write
		wantRule  string // "" when hello #2 must reach the server
		serverHRR bool
	}{
		{name: "same name", target: "allowed.test:443", hello1: buildHello(sniExt("allowed.test")),
			hello2: buildHello(sniExt("allowed.test")), serverHRR: true},
		{name: "another name", target: "allowed.test:443", hello1: buildHello(sniExt("allowed.test")),
			hello2: buildHello(sniExt("evil.test")), wantRule: RuleSNIMismatch, serverHRR: true},
		{name: "another name, sent ahead", target: "allowed.test:443", hello1: buildHello(sniExt("allowed.test")),
			hello2: buildHello(sniExt("evil.test")), ahead: true, wantRule: RuleSNIMismatch, serverHRR: true},
		{name: "no name", target: "allowed.test:443", hello1: buildHello(sniExt("allowed.test")),
			hello2: buildHello(nil), wantRule: RuleSNIMismatch, serverHRR: true},
		{name: "ECH", target: "allowed.test:443", hello1: buildHello(sniExt("allowed.test")),
			hello2: buildHello(ech), wantRule: RuleECH, serverHRR: true},
		{name: "malformed", target: "allowed.test:443", hello1: buildHello(sniExt("allowed.test")),
			hello2: buildHello(sniExt("a.test", "b.test")), wantRule: RuleBadTLS, serverHRR: true},
		{name: "address target, no name", target: addrAllowed.String() + ":443", hello1: buildHello(nil),
			hello2: buildHello(nil), serverHRR: true},
		{name: "address target, a name", target: addrAllowed.String() + ":443", hello1: buildHello(nil),
			hello2: buildHello(sniExt("evil.test")), wantRule: RuleSNIMismatch, serverHRR: true},
		{name: "no HelloRetryRequest", target: "allowed.test:443", hello1: buildHello(sniExt("allowed.test")),
			hello2: []byte("application data")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host, _, _ := strings.Cut(tt.target, ":")
			h := newHarness(t, Config{Policy: Policy{Allowed: []string{host}}})
			got := make(chan string, 1)
			h.dial.route(ap(addrAllowed, 443), tcpServer(t, func(c net.Conn) {
				_ = c.SetDeadline(time.Now().Add(3 * time.Second))
				if _, _, err := readFirstFlight(c); err != nil {
					got <- "hello #1: " + err.Error()
					return
				}
				if _, err := c.Write(append(serverHello(tt.serverHRR), ccsRecord...)); err != nil {
					got <- "write: " + err.Error()
					return
				}
				b, _ := io.ReadAll(c)
				got <- string(b)
			}))
			second := append(append([]byte{}, ccsRecord...), tt.hello2...)
			if !tt.serverHRR {
				second = tt.hello2
			}
			c := mustDialProxy(t, h.addr)
			connect := "CONNECT " + tt.target + " HTTP/1.1\r\nHost: " + tt.target + "\r\n\r\n"
			if tt.ahead {
				_, _ = c.Write(bytes.Join([][]byte{[]byte(connect), tt.hello1, second}, nil))
			} else {
				_, _ = io.WriteString(c, connect)
			}
			br := bufio.NewReader(c)
			if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
				t.Fatalf("CONNECT: %v %v", resp, err)
			}
			if !tt.ahead {
				_, _ = c.Write(tt.hello1)
				answer := make([]byte, len(serverHello(tt.serverHRR)))
				if _, err := io.ReadFull(br, answer); err != nil || !bytes.Equal(answer, serverHello(tt.serverHRR)) {
					t.Fatalf("the server's answer: % x, %v", answer, err)
				}
				_, _ = c.Write(second)
			}
			if tt.wantRule == "" {
				_ = c.(*net.TCPConn).CloseWrite()
				if b := <-got; b != string(second) {
					t.Fatalf("the server read %q after hello #1, want %q", b, second)
				}
				return
			}
			if b := <-got; b != "" {
				t.Errorf("the server read %q after hello #1", b)
			}
			ds := h.sink.waitFor(t, 2)
			if ds[1].Allowed || ds[1].Rule != tt.wantRule || !strings.Contains(ds[1].Reason, "HelloRetryRequest") {
				t.Errorf("decisions %+v", ds)
			}
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			if rest, err := io.ReadAll(br); !bytes.HasSuffix(rest, tlsAlert) && !errors.Is(err, net.ErrClosed) {
				t.Errorf("the client read % x, %v, not the access_denied alert", rest, err)
			}
		})
	}
}
