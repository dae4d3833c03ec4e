//go:build linux

package egress_test

import (
	"strings"
	"testing"
)

// TestNetRedteam6EchoEverywhere (held): end to end, from a sandbox, an
// upstream that repeats the injected value in an interim 103 response, the
// status line's reason, Location, Set-Cookie, a body whose chunks split
// the value and arrive 100 ms apart (separate TLS records, so the proxy
// reads the value in two pieces), and a trailer field: the sandbox gets
// every echo masked. The control: the upstream got the real value, and the
// masked echoes are there.
func TestNetRedteam6EchoEverywhere(t *testing.T) {
	inNetns(t)
	run := rt6Reflecting(t)
	out := run("/rt6-everywhere")
	masked := strings.Repeat("*", len(testSecret))
	if !strings.Contains(out, "X-Got: real") {
		t.Errorf("control: the upstream did not get the real value")
	}
	for _, want := range []string{"302 Found " + masked, "Location: https://allowed.test/?k=" + masked, "s=" + masked, "X-Trailing: " + masked} {
		if !strings.Contains(out, want) {
			t.Errorf("control: %q is not in the response", want)
		}
	}
	if rt6Leaked(out) {
		t.Errorf("ESCAPE: the real value reached the sandbox")
	}
	// The chunked body arrives re-chunked: the value's halves may sit in
	// two chunks, so look for them apart as well.
	h := len(testSecret) / 2
	if strings.Contains(out, testSecret[:h]) && strings.Contains(out, testSecret[h:]) {
		t.Errorf("ESCAPE: both halves of the real value reached the sandbox")
	}
}
