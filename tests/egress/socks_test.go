//go:build linux

package egress_test

import (
	"strings"
	"testing"
)

// socksProxy is where a sandboxed SOCKS5 client finds the proxy (the same
// port as the HTTP proxy; ALL_PROXY names it as socks5h://).
const socksProxy = "127.0.0.1:3128"

// TestNetSOCKS5: curl --socks5-hostname (names resolved by the proxy)
// reaches the allowed hosts and is refused, with reply 0x02 ("not allowed
// by ruleset"; curl exit 97), for denied names, names off the list and
// names or literals the guard refuses.
func TestNetSOCKS5(t *testing.T) {
	inNetns(t)
	t.Parallel()
	allow := func(p ...string) netPolicy { return netPolicy{allow: p} }
	cases := []struct {
		name string
		pol  netPolicy
		args []string
		// body is what an allowed request must return; want is the
		// decision that allowed or refused it.
		body      string
		want      decisionWant
		unreached []string
	}{
		{"allowed_https", allow("allowed.test"), []string{"--socks5-hostname", socksProxy, "https://allowed.test/socks-https"},
			"upstream https " + allowedAddr + ":443 host=allowed.test path=/socks-https",
			decisionWant{"socks5", "allowed.test", 443, "allow:allowed.test", allowedAddr}, nil},
		{"allowed_http", allow("allowed.test"), []string{"--socks5-hostname", socksProxy, "http://allowed.test/socks-http"},
			"upstream http " + allowedAddr + ":80 host=allowed.test path=/socks-http",
			decisionWant{"socks5", "allowed.test", 80, "allow:allowed.test", allowedAddr}, nil},
		// ALL_PROXY=socks5h://… is what the sandbox's environment says.
		{"allowed_all_proxy_env", allow("allowed.test"), []string{"--proxy", "socks5h://" + socksProxy, "https://allowed.test/socks-env"},
			"upstream https " + allowedAddr + ":443 host=allowed.test path=/socks-env",
			decisionWant{"socks5", "allowed.test", 443, "allow:allowed.test", allowedAddr}, nil},
		{"not_allowed", allow("allowed.test"), []string{"--socks5-hostname", socksProxy, "https://other.test/socks"},
			"", decisionWant{"socks5", "other.test", 443, "default-deny", ""}, []string{otherAddr + ":443"}},
		{"denied", netPolicy{allow: []string{"denied.test"}, deny: []string{"denied.test"}}, []string{"--socks5-hostname", socksProxy, "http://denied.test/socks"},
			"", decisionWant{"socks5", "denied.test", 80, "deny:denied.test", ""}, []string{deniedAddr + ":80"}},
		{"name_to_loopback", allow("loop.test"), []string{"--socks5-hostname", socksProxy, "http://loop.test/socks"},
			"", decisionWant{"socks5", "loop.test", 80, "guard:loopback", "127.0.0.1"}, []string{"127.0.0.1:80"}},
		{"name_to_metadata", allow("meta.test"), []string{"--socks5-hostname", socksProxy, "http://meta.test/latest/meta-data/"},
			"", decisionWant{"socks5", "meta.test", 80, "guard:metadata", metadataAddr}, []string{metadataAddr + ":80"}},
		{"name_to_host_address", allow("hostaddr.test"), []string{"--socks5-hostname", socksProxy, "https://hostaddr.test/socks"},
			"", decisionWant{"socks5", "hostaddr.test", 443, "guard:host-address", hostAddr}, []string{hostAddr + ":443"}},
		// --socks5 sends an IPv4 address (curl resolves; literals need not).
		{"literal_loopback", allow("127.0.0.1"), []string{viaProxy, "", "--socks5", socksProxy, "http://127.0.0.1/socks"},
			"", decisionWant{"socks5", "127.0.0.1", 80, "guard:loopback", ""}, []string{"127.0.0.1:80"}},
		{"literal_private", allow(privateAddr), []string{"--socks5", socksProxy, "https://" + privateAddr + "/socks"},
			"", decisionWant{"socks5", privateAddr, 443, "guard:private", ""}, []string{privateAddr + ":443"}},
		{"literal_not_listed", allow("allowed.test"), []string{"--socks5", socksProxy, "http://" + allowedAddr + "/socks"},
			"", decisionWant{"socks5", allowedAddr, 80, "default-deny", ""}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := runSandboxed(t, c.pol, curlArgv(c.args...))
			r := o.curl(t)
			if c.body != "" {
				if r.exit != 0 || r.code != "200" || !strings.Contains(r.body, c.body) {
					t.Fatalf("want 200 with %q, got code %s exit %d\n%s", c.body, r.code, r.exit, o.dump())
				}
				o.wantAllowed(t, c.want)
				return
			}
			// CURLE_PROXY, with SOCKS5 reply 2: not allowed by ruleset.
			if r.exit != 97 || !strings.Contains(r.stderr, "(2)") || strings.Contains(r.body, "upstream ") {
				t.Errorf("want curl exit 97 with SOCKS reply 2, got exit %d\n%s", r.exit, o.dump())
			}
			o.wantNoneAllowed(t)
			o.wantRefused(t, c.want)
			expectUnreached(t, c.unreached...)
		})
	}
	// BIND and UDP ASSOCIATE are refused with reply 7 (command not
	// supported), whatever the lists allow.
	for _, cmd := range []struct{ name, code string }{{"bind", "2"}, {"udp_associate", "3"}} {
		t.Run(cmd.name, func(t *testing.T) {
			t.Parallel()
			o := runSandboxed(t, allow("allowed.test"), probeArgv(t, "socks-cmd", cmd.code))
			if got := lines(o.res.Stdout); len(got) != 1 || got[0] != "socks reply 7" {
				t.Errorf("want socks reply 7, got %q\n%s", got, o.dump())
			}
			o.wantNoneAllowed(t)
		})
	}
}
