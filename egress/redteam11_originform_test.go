package egress

import (
	"bufio"
	"strings"
	"testing"
)

// TestRedteam11OriginFormNamesNoOtherHost: inside a tunnel to api.test an
// absolute request target goes upstream in origin form, cut from the
// client's bytes (originForm) after the authority was checked. Targets
// whose authority Go and originForm might split differently (userinfo,
// backslashes, '#' or '?' in the authority, an empty authority, an odd
// scheme, dot segments) must either be refused or reach upstream as a
// path of api.test: a request line starting with "/" (or left as the
// client sent it when it names no authority at all) and Host api.test,
// never another host's name before the path. The controls are ordinary
// absolute targets, relayed with their path bytes.
func TestRedteam11OriginFormNamesNoOtherHost(t *testing.T) {
	tgt := target{name: "api.test", port: 443}
	for _, tc := range []struct {
		target string
		want   string // "" : refused, or any origin form naming no other host
		ok     bool   // control: must be relayed as want
	}{
		{"https://api.test/a/b?c=d", "/a/b?c=d", true},
		{"https://api.test:443/a%2Fb", "/a%2Fb", true},
		{"https://api.test?q=1", "/?q=1", true},
		{"https://api.test@evil.test/x", "", false},
		{"https://evil.test/@api.test/x", "", false},
		{"https://api.test\\@evil.test/x", "", false},
		{"https://evil.test\\@api.test/x", "", false},
		{"https://evil.test#@api.test/x", "", false},
		{"https://api.test#@evil.test/x", "", false},
		{"https://evil.test?@api.test/x", "", false},
		{"https://api.test?@evil.test/x", "", false},
		{"https://api.test%40evil.test/x", "", false},
		{"https://api.test:443@evil.test:443/x", "", false},
		{"https://api.test/..", "", false},
		{"https://api.test/../../evil.test/x", "", false},
		{"https://api.test#frag", "", false},
		{"https://api.test/#frag", "", false},
		{"https:///evil.test/x", "", false},
		{"https:evil.test/x", "", false},
		{"https:/evil.test/x", "", false},
		{"HTTPS://api.test/x", "", false},
		{"http://api.test/x", "", false},
		{"ftp://api.test/x", "", false},
		{"https://[::1]/x", "", false},
		{"https://api.test./x", "", false},
		{"https://API.TEST/x", "", false},
	} {
		t.Run(tc.target, func(t *testing.T) {
			raw := "GET " + tc.target + " HTTP/1.1\r\nHost: api.test\r\n\r\n"
			req, _, err := readTunnelRequest(bufio.NewReader(strings.NewReader(raw)), tgt, "https")
			if tc.ok {
				if err != nil || req.RequestURI != tc.want || req.Host != "api.test" {
					t.Fatalf("control: %q: err %v, req %+v; want %q relayed", tc.target, err, req, tc.want)
				}
				return
			}
			if err != nil {
				return // refused
			}
			uri := req.RequestURI
			if req.Host != "api.test" {
				t.Errorf("ESCAPE: %q relayed with Host %q", tc.target, req.Host)
			}
			t.Logf("%q relayed as %q", tc.target, uri)
			if strings.HasPrefix(uri, "/") {
				if strings.HasPrefix(uri, "//") || strings.Contains(strings.SplitN(uri, "?", 2)[0], "evil.test") && !strings.HasPrefix(tc.target, "https://api.test/") {
					t.Errorf("ESCAPE: %q relayed as %q: a path naming another host", tc.target, uri)
				}
				return
			}
			// Not in origin form: only acceptable if it names no authority.
			if i := strings.Index(uri, "://"); i >= 0 && !strings.HasPrefix(uri[i+3:], "/") {
				t.Errorf("ESCAPE: %q relayed as %q: an absolute target with an authority", tc.target, uri)
			}
		})
	}
}
