package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestRedteam45DeniedAddressByName: an address the operator denies
// (Policy.Denied "192.0.2.66", an IP pattern, which ParsePattern and the
// Pattern doc accept as "exactly that address") is refused only when the
// sandbox spells it as a literal. A name that the allow list lets through
// and that resolves to the denied address is dialled: ruleset.decide
// judges the name alone, and connect (connect.go) checks the resolved
// addresses with the guard only (Proxy.screen), never with the Denied
// list. Any wildcard DNS service (203-0-113-5.nip.io, sslip.io, a record
// in a zone the agent controls) gives such a name, so with a broad allow
// list ("*", "*.nip.io", OnRequest) a denied address is reachable on
// every front end. DESIGN invariant 2: "the proxy decides on the resolved
// address as well as the name".
//
// Severity: high (a connection the policy denies is made).
// Code at fault: connect (connect.go) / Proxy.screen: resolved addresses
// are not matched against the Denied IP patterns.
// Control: the same address as a literal is refused (deny:192.0.2.66),
// and a name resolving to an address nobody denied is reached.
//
// Found by red-team round 45 (high). Fixed: Proxy.screen refuses a
// resolved address that a Denied IP pattern matches (ruleset.deniedAddr),
// under that pattern's rule.
func TestRedteam45DeniedAddressByName(t *testing.T) {
	denied := netip.MustParseAddr("192.0.2.66")
	h := newHarness(t, Config{Policy: Policy{
		Allowed: []string{"*", "192.0.2.66"}, // even explicitly allowed, Denied wins
		Denied:  []string{"192.0.2.66"},
	}})
	h.res.mu.Lock()
	h.res.answers["alias.test"] = []netip.Addr{denied} // e.g. 192-0-2-66.nip.io
	h.res.answers["fine.test"] = []netip.Addr{addrOther}
	h.res.mu.Unlock()
	marker := "MARKER-rt45-denied-upstream\n"
	up := tcpServer(t, func(c net.Conn) {
		_, _ = io.WriteString(c, marker)
		_, _ = io.Copy(io.Discard, c)
	})
	h.dial.route(ap(denied, 443), up)
	h.dial.route(ap(addrOther, 443), up)

	connect := func(t *testing.T, target string) (int, string, string) {
		c := mustDialProxy(t, h.addr)
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			return resp.StatusCode, resp.Header.Get("X-Agentbox-Deny"), ""
		}
		line, _ := br.ReadString('\n')
		return 200, "", line
	}

	// Controls: the literal is refused by the Denied pattern; a name with
	// an address nobody denied is reached (the upstream's marker comes).
	if st, rule, _ := connect(t, "192.0.2.66:443"); st != 403 || rule != "deny:192.0.2.66" {
		t.Fatalf("control: CONNECT 192.0.2.66:443: status %d rule %q, want 403 deny:192.0.2.66", st, rule)
	}
	if st, _, got := connect(t, "fine.test:443"); st != 200 || got != marker {
		t.Fatalf("control: CONNECT fine.test:443: status %d, read %q; want the upstream's marker", st, got)
	}

	// The attack: a name that resolves to the denied address, over CONNECT
	// and SOCKS5.
	st, rule, got := connect(t, "alias.test:443")
	if st == 200 && got == marker {
		t.Errorf("ESCAPE: CONNECT alias.test:443 reached the denied address %s (read %q from it)", denied, strings.TrimSpace(got))
	} else {
		t.Logf("CONNECT alias.test:443: %d %s", st, rule)
	}

	c := mustDialProxy(t, h.addr)
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	name := "alias.test"
	req := append([]byte{5, 1, 0, 5, 1, 0, 3, byte(len(name))}, name...)
	req = append(req, 443>>8, 443&0xff)
	_, _ = c.Write(req)
	br := bufio.NewReader(c)
	var rep [12]byte
	if _, err := io.ReadFull(br, rep[:2]); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(br, rep[2:12]); err != nil {
		t.Fatal(err)
	}
	if rep[3] == 0 {
		line, _ := br.ReadString('\n')
		if line == marker {
			t.Errorf("ESCAPE: SOCKS5 alias.test:443 reached the denied address %s", denied)
		}
	}
	var dialed []string
	for _, a := range h.dial.dials() {
		if a.Addr() == denied {
			dialed = append(dialed, a.String())
		}
	}
	if len(dialed) > 0 {
		t.Errorf("the proxy dialled the denied address: %v", dialed)
	}
}
