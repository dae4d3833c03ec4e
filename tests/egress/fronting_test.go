//go:build linux

package egress_test

import (
	"slices"
	"strings"
	"testing"
)

// TestNetFronting: a tunnel whose target is allowed but whose TLS
// ClientHello names another host is cut before a byte of the ClientHello
// reaches upstream. other.test is on the upstream certificate, so a fronted
// handshake that got through would succeed and its request would show in
// the upstream's log; the controls, with a matching SNI, prove the probe
// reaches the server when the names agree.
func TestNetFronting(t *testing.T) {
	inNetns(t)
	t.Parallel()
	pol := netPolicy{allow: []string{"allowed.test"}}
	cases := []struct {
		name string
		argv func(t *testing.T) []string
		// want are lines the output must contain (in order).
		want []string
		// refused is the decision that must refuse; zero for controls.
		refused decisionWant
	}{
		{name: "curl_connect_to",
			argv: func(*testing.T) []string {
				return curlArgv("--connect-to", "other.test:443:allowed.test:443", "https://other.test/front-curl")
			},
			refused: decisionWant{"connect", "allowed.test", 443, "sni-mismatch", ""}},
		{name: "curl_socks_connect_to",
			argv: func(*testing.T) []string {
				return curlArgv("--socks5-hostname", "127.0.0.1:3128",
					"--connect-to", "other.test:443:allowed.test:443", "https://other.test/front-curl-socks")
			},
			refused: decisionWant{"socks5", "allowed.test", 443, "sni-mismatch", ""}},
		// Plain HTTP through a CONNECT tunnel (curl -p) to the allowed
		// host's port 80, asking the front end for another host.
		{name: "curl_proxytunnel_host",
			argv: func(*testing.T) []string {
				return curlArgv("-f", "-p", "-H", "Host: other.test", "http://allowed.test/front-tunnel-host")
			},
			refused: decisionWant{"http", "allowed.test", 80, "host-mismatch", ""}},
		// --resolve changes nothing: names go to the proxy unresolved.
		{name: "curl_resolve",
			argv: func(*testing.T) []string {
				return curlArgv("--resolve", "other.test:443:"+allowedAddr, "https://other.test/front-resolve")
			},
			refused: decisionWant{"connect", "other.test", 443, "default-deny", ""}},
		{name: "connect_sni_other",
			argv:    probe("front", "connect", "allowed.test", "443", "other.test", caFile(), "front-connect"),
			want:    []string{"proxy 200 deny=", "tls error"},
			refused: decisionWant{"connect", "allowed.test", 443, "sni-mismatch", ""}},
		{name: "socks_sni_other",
			argv:    probe("front", "socks", "allowed.test", "443", "other.test", caFile(), "front-socks"),
			want:    []string{"socks reply 0", "tls error"},
			refused: decisionWant{"socks5", "allowed.test", 443, "sni-mismatch", ""}},
		{name: "control_connect_sni_matches",
			argv: probe("front", "connect", "allowed.test", "443", "allowed.test", caFile(), "front-control-connect"),
			want: []string{"proxy 200 deny=", "tls ok", "response HTTP/1.1 200 OK",
				"response upstream https " + allowedAddr + ":443 host=allowed.test path=/front-control-connect"}},
		{name: "control_socks_sni_matches",
			argv: probe("front", "socks", "allowed.test", "443", "allowed.test", caFile(), "front-control-socks"),
			want: []string{"socks reply 0", "tls ok", "response HTTP/1.1 200 OK",
				"response upstream https " + allowedAddr + ":443 host=allowed.test path=/front-control-socks"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := runSandboxed(t, pol, c.argv(t))
			if strings.HasPrefix(c.name, "curl_") {
				if r := o.curl(t); r.exit == 0 || strings.Contains(r.body, "upstream ") {
					t.Errorf("ESCAPE: the fronted request succeeded\n%s", o.dump())
				}
			} else if !containsInOrder(lines(o.res.Stdout), c.want) {
				t.Errorf("want lines starting with %q\n%s", c.want, o.dump())
			}
			if c.name == "curl_proxytunnel_host" {
				// The same tunnel with the right Host goes through.
				ok := runSandboxed(t, pol, curlArgv("-f", "-p", "http://allowed.test/front-tunnel-control"))
				if r := ok.curl(t); r.exit != 0 || !strings.Contains(r.body, "upstream ") {
					t.Errorf("control: plain HTTP through a tunnel with the right Host failed\n%s", ok.dump())
				}
			}
			if c.refused.host == "" {
				o.wantAllowed(t, decisionWant{host: "allowed.test", port: 443, rule: "allow:allowed.test", addr: allowedAddr})
				return
			}
			o.wantRefused(t, c.refused)
		})
	}
	t.Cleanup(func() {
		// The upstream never saw a ClientHello or a request for other.test.
		for _, what := range []string{"sni=other.test", "host=other.test"} {
			if ev := upstreamEvents(t, what); len(ev) != 0 {
				t.Errorf("ESCAPE: upstream saw %q", ev)
			}
		}
	})
}

// containsInOrder reports whether got has lines starting with each of want,
// in order.
func containsInOrder(got, want []string) bool {
	i := 0
	for _, w := range want {
		j := slices.IndexFunc(got[i:], func(g string) bool { return strings.HasPrefix(g, w) })
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return true
}
