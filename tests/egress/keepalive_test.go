//go:build linux

package egress_test

import (
	"strings"
	"testing"
)

// TestNetKeepAlive: every request on a kept-alive proxy connection is
// decided on its own. After an allowed request, a second one for a host off
// the list, on the same client connection (curl reuses it; the probe
// pipelines both at once), is refused and never rides the upstream
// connection the first one opened.
func TestNetKeepAlive(t *testing.T) {
	inNetns(t)
	t.Parallel()
	pol := netPolicy{allow: []string{"allowed.test"}}
	cases := []struct {
		name string
		argv func(t *testing.T) []string
		// want are lines (prefixes) the output must contain, in order.
		want []string
	}{
		{"curl_two_urls",
			func(*testing.T) []string {
				return curlArgv("http://allowed.test/keepalive-curl-1", "http://other.test/keepalive-curl-2")
			},
			[]string{"upstream http " + allowedAddr + ":80 host=allowed.test path=/keepalive-curl-1", "agentbox egress: other.test:80 refused"}},
		{"pipelined",
			probe("pipeline", "http://allowed.test/keepalive-pipe-1", "http://other.test/keepalive-pipe-2"),
			[]string{"response HTTP/1.1 200 OK", "response upstream http " + allowedAddr + ":80 host=allowed.test path=/keepalive-pipe-1",
				"response HTTP/1.1 403 Forbidden", "response X-Agentbox-Deny: default-deny"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := runSandboxed(t, pol, c.argv(t))
			if !containsInOrder(lines(o.res.Stdout), c.want) {
				t.Errorf("want lines starting with %q\n%s", c.want, o.dump())
			}
			if strings.Contains(o.res.Stdout, "host=other.test") {
				t.Errorf("ESCAPE: the second request reached upstream\n%s", o.dump())
			}
			o.wantRefused(t, decisionWant{"http", "other.test", 80, "default-deny", ""})
		})
	}
	t.Cleanup(func() {
		ev := strings.Join(upstreamEvents(t, "/keepalive-"), "\n")
		if strings.Contains(ev, "other.test") || !strings.Contains(ev, "/keepalive-curl-1") || !strings.Contains(ev, "/keepalive-pipe-1") {
			t.Errorf("upstream saw\n%s\nwant only the two allowed requests", ev)
		}
	})
}
