//go:build linux

package egress_test

import (
	"slices"
	"strings"
	"testing"
)

// TestNetRedteam14SpaceInTargetThroughTunnel: from inside a sandbox, curl
// sends plain HTTP through a CONNECT tunnel (-p) to allowed.test:80 with
// a request target holding a blank ("/a b") and Host other.test. The
// proxy checks the Host of plain HTTP in a tunnel only when the first
// bytes read as a request line, and a blank inside the target makes
// requestLine decide "not HTTP": the request is spliced to the upstream
// unchecked, with its other.test Host (a front end that reads blanks in
// the target, as nginx before 1.21.1 did, would serve other.test's
// virtual host; this suite's Go upstream answers it 400, which shows it
// got the request). The attack must be refused by the proxy, with a
// refusing decision and a violation; the control, the same tunnel with
// an ordinary target and the same Host, is refused (host-mismatch), and
// one with the allowed Host goes through.
//
// Fixed: requestLine reads on past a blank inside an HTTP target (a
// capitals method and a path, "*" or an absolute URI) and calls the line
// lenient, so the tunnel is refused as plain-http-tunnel.
func TestNetRedteam14SpaceInTargetThroughTunnel(t *testing.T) {
	inNetns(t)
	t.Parallel()
	pol := netPolicy{allow: []string{"allowed.test"}}
	cases := []struct {
		name    string
		args    []string
		control string // "refused" or "allowed"; "" for the attack
	}{
		{"space_in_target", []string{"-p", "--request-target", "/rt14 b", "-H", "Host: other.test", "http://allowed.test/"}, ""},
		{"control_other_host", []string{"-p", "--request-target", "/rt14", "-H", "Host: other.test", "http://allowed.test/"}, "refused"},
		{"control_allowed_host", []string{"-f", "-p", "--request-target", "/rt14-ok", "http://allowed.test/"}, "allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := runSandboxed(t, pol, curlArgv(c.args...))
			r := o.curl(t)
			switch c.control {
			case "allowed":
				if r.exit != 0 || !strings.Contains(r.body, "upstream http") || !strings.Contains(r.body, "host=allowed.test path=/rt14-ok") {
					t.Fatalf("control: the allowed request failed\n%s", o.dump())
				}
				o.wantAllowed(t, decisionWant{"connect", "allowed.test", 80, "allow:allowed.test", allowedAddr})
				return
			case "refused":
				if !slices.Contains(r.denyHeader(), "host-mismatch") {
					t.Fatalf("control: a tunnel request with Host other.test was not refused\n%s", o.dump())
				}
				o.wantRefused(t, decisionWant{"http", "allowed.test", 80, "host-mismatch", ""})
				return
			}
			// Refused inside a tunnel already open, the request gets no
			// answer at all (the proxy closes the tunnel): any HTTP status
			// is the upstream's.
			if len(r.denyHeader()) == 0 && r.code != "000" {
				t.Errorf("ESCAPE: a request with Host other.test reached allowed.test's front end unchecked: curl got %s from the upstream, no X-Agentbox-Deny\n%s", r.code, o.dump())
			}
			refused := false
			for _, d := range o.decisions {
				if !d.Allowed {
					refused = true
				}
			}
			if !refused || len(o.res.Violations) == 0 {
				t.Errorf("no refusing decision or violation for the fronted request\n%s", o.dump())
			}
		})
	}
}
