//go:build linux

package egress_test

import (
	"strings"
	"testing"
)

// TestNetAllowed: a sandboxed curl reaches the allowed hosts through the
// proxy, over HTTPS (CONNECT) and plain HTTP, and gets what the upstream
// server served; the decision names the host, port, rule and the address
// the proxy dialled.
func TestNetAllowed(t *testing.T) {
	inNetns(t)
	t.Parallel()
	cases := []struct {
		name  string
		allow []string
		url   string
		want  decisionWant
		body  string
	}{
		{"https", []string{"allowed.test"}, "https://allowed.test/allowed-https",
			decisionWant{"connect", "allowed.test", 443, "allow:allowed.test", allowedAddr},
			"upstream https " + allowedAddr + ":443 host=allowed.test path=/allowed-https"},
		{"http", []string{"allowed.test"}, "http://allowed.test/allowed-http",
			decisionWant{"http", "allowed.test", 80, "allow:allowed.test", allowedAddr},
			"upstream http " + allowedAddr + ":80 host=allowed.test path=/allowed-http"},
		{"wildcard_subdomain", []string{"*.allowed.test"}, "https://sub.allowed.test/allowed-wildcard",
			decisionWant{"connect", "sub.allowed.test", 443, "allow:*.allowed.test", allowedAddr},
			"upstream https " + allowedAddr + ":443 host=sub.allowed.test path=/allowed-wildcard"},
		{"case_and_trailing_dot", []string{"ALLOWED.test."}, "https://Allowed.Test./allowed-case",
			decisionWant{"connect", "allowed.test", 443, "", allowedAddr},
			"upstream https " + allowedAddr + ":443"},
		// mixed.test resolves to 127.0.0.1 and 10.0.0.1 before its good
		// address: the proxy skips the blocked ones and never touches them.
		{"mixed_addresses", []string{"mixed.test"}, "https://mixed.test/allowed-mixed",
			decisionWant{"connect", "mixed.test", 443, "allow:mixed.test", allowedAddr},
			"upstream https " + allowedAddr + ":443 host=mixed.test path=/allowed-mixed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := runSandboxed(t, netPolicy{allow: c.allow}, curlArgv(c.url))
			r := o.curl(t)
			if r.exit != 0 || r.code != "200" || !strings.Contains(r.body, c.body) {
				t.Fatalf("want 200 with %q, got code %s exit %d\n%s", c.body, r.code, r.exit, o.dump())
			}
			o.wantAllowed(t, c.want)
		})
	}
	// No allowed request touched a blocked address on the way.
	t.Cleanup(func() {
		expectUnreached(t, "127.0.0.1:443", privateAddr+":443")
	})
}
