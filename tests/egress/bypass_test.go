//go:build linux

package egress_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNetBypass: programs that ignore the proxy get nowhere. The sandbox's
// network namespace has loopback only: no route to the upstream hosts, to
// the private and metadata addresses, or to the host's own address, and no
// DNS; its 127.0.0.1 is its own, where nothing but the proxy listens, so
// the host's loopback services stay out of reach. The policy allows
// everything the probes aim at, so only the missing route stops them, and
// every target answers in the topology, so a leak would show.
func TestNetBypass(t *testing.T) {
	inNetns(t)
	t.Parallel()
	pol := netPolicy{allow: []string{"allowed.test", allowedAddr, "loop.test", "127.0.0.1"}}
	canary := allowedAddr + ":" + strconv.Itoa(canaryPort)
	cases := []struct {
		name string
		argv func(t *testing.T) []string
		// curlExit is the exit status a curl row must have; for a probe row,
		// want is the line it must print (one of them).
		curlExit int
		want     []string
		// unreached are servers that must have seen no connection.
		unreached []string
	}{
		{name: "curl_noproxy_ip",
			argv:     func(*testing.T) []string { return curlArgv("--noproxy", "*", "http://"+canary+"/") },
			curlExit: 7, unreached: []string{canary}},
		// No DNS server is reachable either. (The test names are in the
		// suite's /etc/hosts, which the sandbox reads: curl resolves them
		// and then has no route, as above.)
		{name: "curl_noproxy_no_dns",
			argv:     func(*testing.T) []string { return curlArgv("--noproxy", "*", "https://unlisted.test/") },
			curlExit: 6},
		{name: "curl_noproxy_name",
			argv:     func(*testing.T) []string { return curlArgv("--noproxy", "*", "https://allowed.test/") },
			curlExit: 7},
		{name: "curl_noproxy_private",
			argv:     func(*testing.T) []string { return curlArgv("--noproxy", "*", "http://"+privateAddr+"/") },
			curlExit: 7, unreached: []string{privateAddr + ":80"}},
		{name: "curl_noproxy_metadata",
			argv: func(*testing.T) []string {
				return curlArgv("--noproxy", "*", "http://"+metadataAddr+"/latest/meta-data/")
			},
			curlExit: 7, unreached: []string{metadataAddr + ":80"}},
		{name: "curl_noproxy_host_address",
			argv:     func(*testing.T) []string { return curlArgv("--noproxy", "*", "http://"+hostAddr+"/") },
			curlExit: 7, unreached: []string{hostAddr + ":80"}},
		// curl goes to loopback directly even with the proxy variables set:
		// that is the sandbox's own loopback, not the host's.
		{name: "curl_host_loopback_direct",
			argv:     func(*testing.T) []string { return curlArgv("http://127.0.0.1/") },
			curlExit: 7, unreached: []string{"127.0.0.1:80"}},
		{name: "curl_host_loopback_direct_https",
			argv:     func(*testing.T) []string { return curlArgv("--noproxy", "*", "https://127.0.0.1/") },
			curlExit: 7, unreached: []string{"127.0.0.1:443"}},
		{name: "tcp_canary", argv: probe("tcp", allowedAddr, strconv.Itoa(canaryPort)),
			want: []string{"error ENETUNREACH"}, unreached: []string{canary}},
		{name: "tcp_upstream_https", argv: probe("tcp", allowedAddr, "443"),
			want: []string{"error ENETUNREACH"}},
		{name: "tcp_private", argv: probe("tcp", privateAddr, "80"),
			want: []string{"error ENETUNREACH"}, unreached: []string{privateAddr + ":80"}},
		{name: "tcp_metadata", argv: probe("tcp", metadataAddr, "80"),
			want: []string{"error ENETUNREACH"}, unreached: []string{metadataAddr + ":80"}},
		{name: "tcp_host_address", argv: probe("tcp", hostAddr, "80"),
			want: []string{"error ENETUNREACH"}, unreached: []string{hostAddr + ":80"}},
		{name: "tcp_host_loopback", argv: probe("tcp", "127.0.0.1", "80"),
			want: []string{"error ECONNREFUSED"}, unreached: []string{"127.0.0.1:80"}},
		{name: "tcp_host_loopback6", argv: probe("tcp", "::1", "80"),
			want: []string{"error ECONNREFUSED", "error EADDRNOTAVAIL", "error ENETUNREACH"}, unreached: []string{"[::1]:80"}},
		{name: "udp_upstream", argv: probe("udp", allowedAddr, "53"),
			want: []string{"error ENETUNREACH"}},
		{name: "udp_private", argv: probe("udp", privateAddr, "53"),
			want: []string{"error ENETUNREACH"}},
		// The control: the probe works, and the proxy is what it can reach.
		{name: "control_tcp_proxy", argv: probe("tcp", "127.0.0.1", "3128"),
			want: []string{"connected"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := runSandboxed(t, pol, c.argv(t))
			if c.want == nil {
				r := o.curl(t)
				if r.exit != c.curlExit || strings.Contains(r.body, "upstream ") {
					t.Errorf("want curl exit %d, got %d\n%s", c.curlExit, r.exit, o.dump())
				}
			} else {
				got := lines(o.res.Stdout)
				if o.res.ExitCode != 0 || len(got) != 1 || !slices.Contains(c.want, got[0]) {
					t.Errorf("want one of %q, got %q\n%s", c.want, got, o.dump())
				}
			}
			// Nothing went through the proxy: it was not even asked.
			if len(o.decisions) != 0 {
				t.Errorf("the proxy was used\n%s", o.dump())
			}
			expectUnreached(t, c.unreached...)
		})
	}
}

// probe returns a row's argv builder for probePy.
func probe(args ...string) func(t *testing.T) []string {
	return func(t *testing.T) []string { return probeArgv(t, args...) }
}
