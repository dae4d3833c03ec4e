package egress

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// A name the allow list lets through ("*") that resolves only to an
// address the guard must refuse, spelled in one of the IPv6 forms that
// carry an IPv4 address (mapped, translated, compatible, NAT64, 6to4,
// Teredo) or with a zone, must be refused on every front end (plain HTTP,
// CONNECT, SOCKS5), never dialed, and logged as refused. The same
// addresses as literals, even when the allow list names them, too.
// Control: allowed.test, on each front end.
func TestRedteam17EmbeddedAddressesEveryFrontEnd(t *testing.T) {
	bad := map[string]string{
		"mapped.test":      "::ffff:127.0.0.1",
		"mapped-md.test":   "::ffff:169.254.169.254",
		"transl.test":      "::ffff:0:a9fe:a9fe",
		"compat.test":      "::a00:1",
		"nat64.test":       "64:ff9b::c0a8:1",
		"nat64l.test":      "64:ff9b:1::8.8.8.8",
		"sixtofour.test":   "2002:a9fe:a9fe::1",
		"teredo-s.test":    "2001:0:7f00:1::1",
		"teredo-c.test":    "2001:0:c000:20a::80ff:fffe", // client ^0x7f000001
		"zoned.test":       "fe80::1%lo",
		"ula-md.test":      "fd00:ec2::254",
		"thisnet.test":     "0.1.2.3",
		"unspec6.test":     "::",
		"cgnat.test":       "100.100.100.200",
		"mapped-zero.test": "::ffff:0.0.0.0",
	}
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{
		"*", "127.0.0.1", "[::ffff:127.0.0.1]", "[::ffff:a9fe:a9fe]", "[64:ff9b::a00:1]", "[2002:7f00:1::]",
	}}})
	echo := echoServer(t)
	for name, a := range bad {
		addr := netip.MustParseAddr(a)
		h.res.mu.Lock()
		h.res.answers[name] = []netip.Addr{addr}
		h.res.mu.Unlock()
		// Were the proxy to dial it, the dial succeeds: the test sees it.
		for _, port := range []uint16{80, 443} {
			h.dial.route(netip.AddrPortFrom(addr.WithZone(""), port), echo)
		}
	}
	for _, port := range []uint16{80, 443} {
		h.dial.route(ap(addrAllowed, port), echo)
	}
	targets := []string{}
	for name := range bad {
		targets = append(targets, name)
	}
	targets = append(targets, "127.0.0.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]",
		"[::ffff:a9fe:a9fe]", "[64:ff9b::a00:1]", "[64:ff9b::10.0.0.1]", "[2002:7f00:1::]", "[::127.0.0.1]",
		"[fe80::1%25lo]", "[FE80::1]", "0x7f.1", "2130706433", "0177.0.0.1", "127.1", "127.0.0.1.", "[::FFFF:127.0.0.1]")

	type front struct {
		name string
		try  func(host string, port int) bool // reports whether it got through
	}
	fronts := []front{
		{"http", func(host string, port int) bool {
			c := mustDialProxy(t, h.addr)
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(3 * time.Second))
			fmt.Fprintf(c, "GET http://%s:%d/ HTTP/1.1\r\nHost: %s:%d\r\n\r\n", host, port, host, port)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode < 400 || resp.Header.Get("X-Agentbox-Deny") == ""
		}},
		{"connect", func(host string, port int) bool {
			c := mustDialProxy(t, h.addr)
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(3 * time.Second))
			fmt.Fprintf(c, "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n", host, port, host, port)
			resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"})
			return err == nil && resp.StatusCode == 200
		}},
		{"socks5", func(host string, port int) bool {
			c := mustDialProxy(t, h.addr)
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(3 * time.Second))
			hn := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
			hn = strings.ReplaceAll(hn, "%25", "%")
			req := []byte{5, 1, 0, 5, 1, 0}
			if a, err := netip.ParseAddr(hn); err == nil && a.Zone() == "" {
				if a.Is4() {
					b := a.As4()
					req = append(append(req, 1), b[:]...)
				} else {
					b := a.As16()
					req = append(append(req, 4), b[:]...)
				}
			} else {
				req = append(append(req, 3, byte(len(hn))), hn...)
			}
			req = append(req, byte(port>>8), byte(port))
			if _, err := c.Write(req); err != nil {
				return false
			}
			var rep [12]byte
			if _, err := io.ReadFull(c, rep[:12]); err != nil {
				return false
			}
			return rep[3] == 0
		}},
	}
	for _, f := range fronts {
		port := 80
		if f.name != "http" {
			port = 443
		}
		if !f.try("allowed.test", port) {
			t.Fatalf("control: %s to allowed.test:%d refused", f.name, port)
		}
		for _, host := range targets {
			if f.try(host, port) {
				t.Errorf("%s to %s:%d got through", f.name, host, port)
			}
		}
	}
	for _, a := range h.dial.dials() {
		if a.Addr() != addrAllowed {
			t.Errorf("the proxy dialed %s", a)
		}
	}
	time.Sleep(100 * time.Millisecond)
	for _, d := range h.sink.all() {
		if d.Allowed && d.Host != "allowed.test" {
			t.Errorf("decision logged as allowed: %+v", d)
		}
	}
}
