//go:build linux

package egress_test

import (
	"strings"
	"testing"
	"time"
)

// TestNetRedteam6DecisionHoldsValue: egress.Credential promises the value
// "never appears in a Decision, a log record or an error". An upstream
// that repeats the value both as a header's name and in that header's
// value got the echo masked for the sandbox, but echoMask.header recorded
// where it found the value under the header's name as the response had it
// (unmasked), and reportEchoes put that into the Decision's Reason: the
// audit log held the value (canonicalised). The report names the header
// masked now. The control: the echo reached the sandbox masked and was
// reported.
func TestNetRedteam6DecisionHoldsValue(t *testing.T) {
	inNetns(t)
	run, decisions := rt6ReflectingWith(t, fixedProvider{})
	out := run("/rt6-namevalue")
	if !strings.Contains(out, "X-Got: real") {
		t.Errorf("control: the upstream did not get the real value")
	}
	if rt6Leaked(out) {
		t.Errorf("ESCAPE: the real value reached the sandbox")
	}
	// The echo is reported once the exchange is over.
	var reported bool
	for deadline := time.Now().Add(5 * time.Second); !reported && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, d := range decisions() {
			if strings.Contains(d.Reason, "repeated API_TOKEN's value") {
				reported = true
			}
		}
	}
	if !reported {
		t.Errorf("control: the echo was not reported")
	}
	for _, d := range decisions() {
		if rt6Leaked(d.Reason + d.Rule + d.Host) {
			t.Errorf("LEAK: a decision (and so the audit log) holds the value: %q", d.Reason)
		}
	}
}
