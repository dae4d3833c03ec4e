package policy_test

import (
	"testing"

	"github.com/agentbox-dev/agentbox/egress"
	"github.com/agentbox-dev/agentbox/policy"
)

// hostCorpus are patterns and hosts on which the manifest's host patterns
// and the egress proxy's must agree.
var hostCorpus = []string{
	"api.example.com", "API.Example.COM.", "*.example.com", "*.example.com:443", "example.com:*",
	"example.com:8443", "localhost", "_acme.example.com", "bücher.de", "*.Bücher.de", "xn--bcher-kva.de",
	"203.0.113.7", "203.0.113.7:8080", "2001:db8::1", "2001:DB8:0::1", "[2001:db8::1]",
	"[2001:db8::1]:443", "[2001:db8::1]:*", "::ffff:1.2.3.4", "*", "*:25", "*:*",
	"", " x.com", "http://x.com", "x.com/path", "user@x.com", "x .com", "*x.com", "x.*.com",
	"*.*.x.com", "**", "*.", "*.1", "x.com:", "x.com:https", "x.com:0", "x.com:65536", "x..com",
	".x.com", "x!.com", "-x.com", "999", "2130706433", "127.1", "0x7f.0.0.1", "x.0x10", "1.2.3.256",
	"[1.2.3.4]", "[::1]x", "fe80::1%eth0", "2001:db8::1:443x", "a.b.c.example.com.",
}

// TestHostPatternsAgreeWithEgress checks that a pattern the manifest accepts
// is one the egress proxy accepts, with the same canonical form, and that
// both match the same hosts and ports. The manifest keeps its own parser so
// that policy does not depend on the proxy; this test keeps them one syntax.
func TestHostPatternsAgreeWithEgress(t *testing.T) {
	ports := []int{22, 80, 443, 8080, 8443}
	for _, s := range hostCorpus {
		mp, merr := policy.ParseHostPattern(s)
		ep, eerr := egress.ParsePattern(s)
		if (merr == nil) != (eerr == nil) {
			t.Errorf("%q: manifest error %v, egress error %v", s, merr, eerr)
			continue
		}
		if merr != nil {
			continue
		}
		if mp.String() != ep.String() {
			t.Errorf("%q: canonical manifest %q, egress %q", s, mp.String(), ep.String())
		}
		for _, h := range hostCorpus {
			for _, port := range ports {
				if m, e := mp.Match(h, port), ep.Match(h, port); m != e {
					t.Errorf("pattern %q, host %q:%d: manifest match %v, egress %v", s, h, port, m, e)
				}
			}
		}
	}
}

// FuzzHostPatternsAgreeWithEgress searches for a pattern on which the two
// parsers disagree (seed corpus only in normal runs).
func FuzzHostPatternsAgreeWithEgress(f *testing.F) {
	for _, s := range hostCorpus {
		f.Add(s, "a.example.com", 443)
	}
	f.Fuzz(func(t *testing.T, s, host string, port int) {
		mp, merr := policy.ParseHostPattern(s)
		ep, eerr := egress.ParsePattern(s)
		if (merr == nil) != (eerr == nil) {
			t.Fatalf("%q: manifest error %v, egress error %v", s, merr, eerr)
		}
		if merr != nil {
			return
		}
		if mp.String() != ep.String() {
			t.Fatalf("%q: canonical manifest %q, egress %q", s, mp.String(), ep.String())
		}
		if m, e := mp.Match(host, port), ep.Match(host, port); m != e {
			t.Fatalf("pattern %q, host %q:%d: manifest match %v, egress %v", s, host, port, m, e)
		}
	})
}
