package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"
)

// TestRedteam8DeniedHostOtherPort: a Denied entry without a port names the
// host only on ports 80 and 443, so a host the operator denied outright
// ("Denied wins") is reached on any other port that a wider allow entry
// ("*.allowed.test:*") covers. The sandbox asks for
// secret.allowed.test:8443 and gets a tunnel.
func TestRedteam8DeniedHostOtherPort(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{
		Allowed: []string{"*.allowed.test:*"},
		Denied:  []string{"secret.allowed.test"},
	}})
	secret := netip.MustParseAddr("192.0.2.66")
	h.res.mu.Lock()
	h.res.answers["secret.allowed.test"] = []netip.Addr{secret}
	h.res.mu.Unlock()
	up := tcpServer(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	for _, port := range []uint16{443, 8443, 22} {
		h.dial.route(ap(secret, port), up)
		h.dial.route(ap(addrAllowed, port), up)
	}
	cases := []struct {
		target string
		want   int
	}{
		{"www.allowed.test:8443", 200}, // control: the wildcard allows every port
		{"secret.allowed.test:443", 403},
		{"secret.allowed.test:8443", 403},
		{"secret.allowed.test:22", 403},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			c := mustDialProxy(t, h.addr)
			_, _ = io.WriteString(c, "CONNECT "+tc.target+" HTTP/1.1\r\nHost: "+tc.target+"\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.want {
				t.Errorf("ESCAPE: CONNECT %s: status %d (X-Agentbox-Deny %q), want %d: the denied host is reached on another port",
					tc.target, resp.StatusCode, resp.Header.Get("X-Agentbox-Deny"), tc.want)
			}
		})
	}
}
