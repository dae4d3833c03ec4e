package egress

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/proxy"
)

// echoServer echoes every byte back.
func echoServer(t testing.TB) string {
	return tcpServer(t, func(c net.Conn) { _, _ = io.Copy(c, c) })
}

func socksDialer(t *testing.T, addr string) proxy.ContextDialer {
	t.Helper()
	d, err := proxy.SOCKS5("tcp", addr, nil, &net.Dialer{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return d.(proxy.ContextDialer)
}

func roundTrip(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := io.WriteString(c, msg); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != msg {
		t.Fatalf("echo: %q, %v", buf, err)
	}
}

func TestSOCKS5Allowed(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test:7000", "192.0.2.10:7001", "[2001:db8::10]:7002"}}})
	echo := echoServer(t)
	h.dial.route(ap(addrAllowed, 7000), echo)
	h.dial.route(ap(addrAllowed, 7001), echo)
	h.dial.route(ap(addrAllowed6, 7002), echo)
	d := socksDialer(t, h.addr)
	for _, target := range []string{"allowed.test:7000", "192.0.2.10:7001", "[2001:db8::10]:7002"} {
		c, err := d.DialContext(context.Background(), "tcp", target)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		roundTrip(t, c, "ping "+target)
		c.Close()
	}
	ds := h.sink.waitFor(t, 3)
	want := []netip.AddrPort{ap(addrAllowed, 7000), ap(addrAllowed, 7001), ap(addrAllowed6, 7002)}
	for i, dd := range ds {
		if !dd.Allowed || dd.Proto != ProtoSOCKS5 || dd.Addr != want[i].Addr() || dd.Port != int(want[i].Port()) {
			t.Errorf("decision %d: %+v", i, dd)
		}
	}
	if got := h.res.looked(); len(got) != 1 || got[0] != "allowed.test" {
		t.Errorf("lookups %v: only the name should be resolved", got)
	}
}

func TestSOCKS5TLSAndFronting(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	cert, pool := testCert(t, "allowed.test")
	up := tcpServer(t, func(c net.Conn) {
		tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}})
		_ = tc.SetDeadline(time.Now().Add(3 * time.Second))
		_, _ = io.Copy(tc, tc)
	})
	h.dial.route(ap(addrAllowed, 443), up)
	d := socksDialer(t, h.addr)

	c, err := d.DialContext(context.Background(), "tcp", "allowed.test:443")
	if err != nil {
		t.Fatal(err)
	}
	tc := tls.Client(c, &tls.Config{ServerName: "allowed.test", RootCAs: pool})
	roundTrip(t, tc, "over tls")
	tc.Close()

	c, err = d.DialContext(context.Background(), "tcp", "allowed.test:443")
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	err = tls.Client(c, &tls.Config{ServerName: "front.evil.test", InsecureSkipVerify: true}).Handshake()
	if err == nil {
		t.Fatal("fronted handshake through SOCKS5 succeeded")
	}
	ds := h.sink.waitFor(t, 3)
	if last := ds[2]; last.Allowed || last.Rule != RuleSNIMismatch || last.Proto != ProtoSOCKS5 {
		t.Errorf("decisions %+v", ds)
	}
}

// socksRaw performs a greeting and sends req, returning the reply code.
func socksRaw(t *testing.T, addr string, req []byte) byte {
	t.Helper()
	c := mustDialProxy(t, addr)
	c.Write([]byte{5, 1, 0})
	var sel [2]byte
	if _, err := io.ReadFull(c, sel[:]); err != nil || sel != [2]byte{5, 0} {
		t.Fatalf("method selection %v, %v", sel, err)
	}
	c.Write(req)
	var rep [10]byte
	if _, err := io.ReadFull(c, rep[:]); err != nil {
		t.Fatalf("reply: %v", err)
	}
	if rep[0] != 5 {
		t.Fatalf("reply version %d", rep[0])
	}
	return rep[1]
}

func socksDomainReq(cmd byte, host string, port uint16) []byte {
	b := []byte{5, cmd, 0, 3, byte(len(host))}
	b = append(b, host...)
	return binary.BigEndian.AppendUint16(b, port)
}

func socksIPReq(cmd byte, a netip.Addr, port uint16) []byte {
	atyp := byte(1)
	if a.Is6() {
		atyp = 4
	}
	b := append([]byte{5, cmd, 0, atyp}, a.AsSlice()...)
	return binary.BigEndian.AppendUint16(b, port)
}

func TestSOCKS5Refusals(t *testing.T) {
	policy := Policy{Allowed: []string{"*.test:*", "127.0.0.1:*", "[::1]:*", "nx.test"}, Denied: []string{"evil.test"}}
	tests := []struct {
		name  string
		req   []byte
		reply byte
		rule  string
	}{
		{"denied name", socksDomainReq(1, "evil.test", 443), 0x02, "deny:evil.test"},
		{"unlisted name", socksDomainReq(1, "unlisted.example", 443), 0x02, RuleDefaultDeny},
		{"name resolving to loopback", socksDomainReq(1, "rebind.test", 443), 0x02, "guard:loopback"},
		{"IPv4 loopback listed", socksIPReq(1, netip.MustParseAddr("127.0.0.1"), 22), 0x02, "guard:loopback"},
		{"IPv6 loopback listed", socksIPReq(1, netip.MustParseAddr("::1"), 22), 0x02, "guard:loopback"},
		{"IPv6 mapped metadata", socksIPReq(1, netip.MustParseAddr("::ffff:169.254.169.254"), 80), 0x02, "guard:metadata"},
		{"decimal integer name", socksDomainReq(1, "2130706433", 80), 0x02, RuleInvalidTarget},
		{"octal name", socksDomainReq(1, "0177.0.0.1", 80), 0x02, RuleInvalidTarget},
		{"IP text as domain", socksDomainReq(1, "127.0.0.1", 80), 0x02, "guard:loopback"},
		{"port zero", socksDomainReq(1, "allowed.test", 0), 0x02, RuleInvalidTarget},
		{"UDP ASSOCIATE", socksIPReq(3, netip.MustParseAddr("0.0.0.0"), 0), 0x07, RuleUnsupported},
		{"BIND", socksDomainReq(2, "allowed.test", 443), 0x07, RuleUnsupported},
		{"unknown command", socksDomainReq(9, "allowed.test", 443), 0x07, RuleUnsupported},
		{"unknown address type", []byte{5, 1, 0, 9, 1, 2, 3, 4, 0, 80}, 0x08, RuleBadRequest},
		{"allowed but unresolvable", socksDomainReq(1, "nx.test", 443), 0x04, "allow:nx.test"},
		{"allowed but unreachable", socksDomainReq(1, "allowed.test", 9), 0x05, "allow:*.test:*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{Policy: policy})
			if got := socksRaw(t, h.addr, tt.req); got != tt.reply {
				t.Fatalf("reply 0x%02x, want 0x%02x", got, tt.reply)
			}
			ds := h.sink.waitFor(t, 1)
			d := ds[0]
			if d.Rule != tt.rule || d.Proto != ProtoSOCKS5 || d.Reason == "" {
				t.Errorf("decision %+v, want rule %q", d, tt.rule)
			}
			if strings.HasPrefix(tt.rule, "allow:") {
				if !d.Allowed {
					t.Errorf("an allowed target that fails to connect is recorded as refused: %+v", d)
				}
			} else if d.Allowed {
				t.Errorf("refusal recorded as allowed: %+v", d)
			}
			for _, a := range h.dial.dials() {
				if tt.reply == 0x02 || tt.reply == 0x07 || tt.reply == 0x08 {
					t.Errorf("refused request dialled %s", a)
				}
			}
		})
	}
}

func TestSOCKSGreetingRefusals(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"*"}}})

	c := mustDialProxy(t, h.addr)
	c.Write([]byte{5, 1, 2}) // username/password only
	var sel [2]byte
	if _, err := io.ReadFull(c, sel[:]); err != nil || sel != [2]byte{5, 0xff} {
		t.Fatalf("selection %v, %v; want no acceptable method", sel, err)
	}

	c4 := mustDialProxy(t, h.addr)
	c4.Write([]byte{4, 1, 0, 80, 127, 0, 0, 1, 0})
	var r4 [8]byte
	if _, err := io.ReadFull(c4, r4[:]); err != nil || r4[1] != 0x5b {
		t.Fatalf("SOCKS4 reply %v, %v; want rejected", r4, err)
	}
	ds := h.sink.waitFor(t, 2)
	for _, d := range ds {
		if d.Allowed || d.Rule != RuleUnsupported {
			t.Errorf("decision %+v", d)
		}
	}
	if len(h.dial.dials()) != 0 {
		t.Error("dialled")
	}
}

func TestSOCKS5OptimisticData(t *testing.T) {
	// A client that sends its first bytes with the request, before the
	// reply, must have them forwarded once the tunnel opens.
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test:7000"}}})
	h.dial.route(ap(addrAllowed, 7000), echoServer(t))
	c := mustDialProxy(t, h.addr)
	msg := append([]byte{5, 1, 0}, socksDomainReq(1, "allowed.test", 7000)...)
	msg = append(msg, "early"...)
	c.Write(msg)
	want := append([]byte{5, 0}, socksReply(0)...)
	want = append(want, "early"...)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
}
