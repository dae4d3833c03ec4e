package egress

import (
	"bufio"
	"strings"
	"testing"
)

// TestRedteam10TunnelAbsoluteTargetKeepsPath: a regression of today's
// "absolute request targets inside tunnels go in origin form"
// (readTunnelRequest). The origin form is made with url.URL.RequestURI,
// which re-escapes the path from its decoded form whenever the client's
// spelling holds a byte Go would have escaped (|, {, }, ", ^, `): an
// encoded slash (%2F, as in GitLab's projects/group%2Fname, npm's
// @scope%2fname, object keys) then goes upstream as a real "/", naming
// another resource. Before the change the target went upstream as sent.
// The request must reach upstream with the client's path bytes; the
// control is the same path in origin form, which is relayed as it is.
//
// Fixed: originForm strips scheme://authority from the client's bytes.
func TestRedteam10TunnelAbsoluteTargetKeepsPath(t *testing.T) {
	tgt := target{name: "api.test", port: 443}
	const path = "/api/v4/projects/group%2Fname/files/a|b.txt?ref=main"
	for _, tc := range []struct{ name, raw string }{
		{"control_origin_form", "GET " + path + " HTTP/1.1\r\nHost: api.test\r\n\r\n"},
		{"absolute_form", "GET https://api.test" + path + " HTTP/1.1\r\nHost: api.test\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _, err := readTunnelRequest(bufio.NewReader(strings.NewReader(tc.raw)), tgt, "https")
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if req.RequestURI != path {
				t.Errorf("REGRESSION: upstream gets %q, want %q as the client sent it (an encoded slash decoded names another resource)", req.RequestURI, path)
			}
		})
	}
}

func TestOriginForm(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://api.test/a%2Fb/c|d?x=1", "/a%2Fb/c|d?x=1"},
		{"https://api.test", "/"},
		{"https://api.test:8443?q", "/?q"},
		{"http://user@api.test/p", "/p"},
		{"https://[2001:db8::1]:8443/p%20q", "/p%20q"},
	} {
		if got := originForm(tt.in); got != tt.want {
			t.Errorf("originForm(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
