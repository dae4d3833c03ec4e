package egress

import (
	"bufio"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// TestRedteam9TunnelRequestHost attacks readTunnelRequest after the fix
// that sends the normalised target as the Host and rewrites an absolute
// target to origin form: an absolute target or Host naming another host,
// port or scheme must be refused; legitimate requests (absolute form,
// HTTP/1.0 without Host, IPv6 literals, non-default ports, case and a
// trailing dot) must go upstream with the Host and request line the
// policy judged.
func TestRedteam9TunnelRequestHost(t *testing.T) {
	name := target{name: "api.test", port: 443}
	name8443 := target{name: "api.test", port: 8443}
	v6 := target{ip: netip.MustParseAddr("2001:db8::1"), port: 8443}
	cases := []struct {
		name     string
		tgt      target
		scheme   string
		raw      string
		ok       bool
		uri      string // want the request line's target
		host     string // want the Host
		wantRule string
	}{
		{"control origin form", name, "https", "GET /x?q=1 HTTP/1.1\r\nHost: api.test\r\n\r\n", true, "/x?q=1", "api.test", ""},
		{"control absolute form", name, "https", "GET https://API.test:443/x?q=1 HTTP/1.1\r\nHost: api.test.\r\n\r\n", true, "/x?q=1", "api.test", ""},
		{"control absolute form without path", name, "https", "GET https://api.test HTTP/1.1\r\n\r\n", true, "/", "api.test", ""},
		{"control HTTP/1.0 without Host", name, "https", "GET /x HTTP/1.0\r\n\r\n", true, "/x", "api.test", ""},
		{"control non-default port", name8443, "https", "GET https://api.test:8443/x HTTP/1.1\r\nHost: api.test:8443\r\n\r\n", true, "/x", "api.test:8443", ""},
		{"control IPv6 literal", v6, "https", "GET https://[2001:db8::1]:8443/x HTTP/1.1\r\n\r\n", true, "/x", "[2001:db8::1]:8443", ""},
		{"control userinfo dropped", name, "https", "GET https://evil.test@api.test/x HTTP/1.1\r\n\r\n", true, "/x", "api.test", ""},
		{"absolute target names another host", name, "https", "GET https://evil.test/x HTTP/1.1\r\nHost: api.test\r\n\r\n", false, "", "", RuleHostMismatch},
		{"Host names another host", name, "https", "GET https://api.test/x HTTP/1.1\r\nHost: evil.test\r\n\r\n", false, "", "", RuleHostMismatch},
		{"second Host", name, "https", "GET /x HTTP/1.1\r\nHost: api.test\r\nHost: evil.test\r\n\r\n", false, "", "", ""},
		{"absolute target another port", name, "https", "GET https://api.test:8443/x HTTP/1.1\r\n\r\n", false, "", "", RuleHostMismatch},
		{"absolute target another scheme", name, "https", "GET http://api.test/x HTTP/1.1\r\n\r\n", false, "", "", RuleBadRequest},
		{"opaque absolute target", name, "https", "GET https:evil.test/x HTTP/1.1\r\nHost: api.test\r\n\r\n", false, "", "", ""},
		{"IPv4-mapped spelling of the v6 target", v6, "https", "GET https://[::ffff:192.0.2.1]:8443/x HTTP/1.1\r\n\r\n", false, "", "", RuleHostMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _, err := readTunnelRequest(bufio.NewReader(strings.NewReader(tc.raw)), tc.tgt, tc.scheme)
			if tc.ok {
				if err != nil {
					t.Fatalf("control refused: %v", err)
				}
				if req.RequestURI != tc.uri || req.Host != tc.host {
					t.Errorf("control: upstream gets %q with Host %q, want %q with Host %q", req.RequestURI, req.Host, tc.uri, tc.host)
				}
				return
			}
			if err == nil {
				t.Fatalf("ESCAPE: %q relayed as %q with Host %q", tc.raw, req.RequestURI, req.Host)
			}
			var re *requestError
			if !errors.As(err, &re) {
				t.Fatalf("not a requestError: %v", err)
			}
			if tc.wantRule != "" && re.rule != tc.wantRule {
				t.Errorf("refused by %s (%s), want %s", re.rule, re.msg, tc.wantRule)
			}
		})
	}
}
