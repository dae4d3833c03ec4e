package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"
)

// TestRedteam8IDNMappedAddress: hosts whose IDNA mapping (full-width
// digits and dots, ideographic full stops, circled digits) turns them into
// an IP literal — loopback, the metadata address, a short loose form —
// must be judged as that address (guard, explicit allow), never resolved
// or allowed as a name, over CONNECT and SOCKS5 alike. The IP literals are
// even allowed explicitly, so only the guard stands in the way.
func TestRedteam8IDNMappedAddress(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test", "*", "127.0.0.1", "169.254.169.254"}}})
	up := tcpServer(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	h.dial.route(ap(addrAllowed, 80), up)
	for _, a := range []string{"127.0.0.1", "169.254.169.254", "127.0.0.2"} {
		h.dial.route(netip.AddrPortFrom(netip.MustParseAddr(a), 80), up) // reached only if the guard fails
	}
	hosts := []struct {
		name, host string
		control    bool
	}{
		{"control", "allowed.test", true},
		{"full-width digits", "\uff11\uff12\uff17.\uff10.\uff10.\uff11", false},
		{"ideographic full stops", "127\u30020\u30020\u30021", false},
		{"full-width full stops", "169\uff0e254\uff0e169\uff0e254", false},
		{"circled digits", "\u2460\u2461\u2466.0.0.\u2460", false},
		{"mapped short form", "\uff11\uff12\uff17.\uff11", false},
		{"mapped hex form", "0x7f.0.0.\uff12", false},
	}
	for _, tc := range hosts {
		t.Run("connect "+tc.name, func(t *testing.T) {
			c := mustDialProxy(t, h.addr)
			_, _ = io.WriteString(c, "CONNECT "+tc.host+":80 HTTP/1.1\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"})
			if err != nil {
				t.Fatal(err)
			}
			if tc.control != (resp.StatusCode == 200) {
				t.Errorf("CONNECT %q: status %d (%s)", tc.host, resp.StatusCode, resp.Header.Get("X-Agentbox-Deny"))
			}
		})
		t.Run("socks5 "+tc.name, func(t *testing.T) {
			c := mustDialProxy(t, h.addr)
			req := []byte{5, 1, 0, 5, 1, 0, 3, byte(len(tc.host))}
			req = append(append(req, tc.host...), 0, 80)
			_, _ = c.Write(req)
			var rep [12]byte
			if _, err := io.ReadFull(c, rep[:]); err != nil {
				t.Fatal(err)
			}
			if tc.control != (rep[3] == 0) {
				t.Errorf("SOCKS5 %q: reply %d", tc.host, rep[3])
			}
		})
	}
	for _, d := range h.dial.dials() {
		if d.Addr() != addrAllowed {
			t.Errorf("ESCAPE: the proxy dialled %s", d)
		}
	}
	for _, n := range h.res.looked() {
		if n != "allowed.test" {
			t.Errorf("the proxy resolved %q", n)
		}
	}
}
