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

// TestRedteam49DeniedAddressEmbedded: an address the operator denies
// (Policy.Denied "192.0.2.66") is still reached by a name whose answer
// carries it inside an IPv6 address: NAT64 (64:ff9b::c000:242), 6to4
// (2002:c000:242::1), IPv4-compatible (::c000:242), IPv4-translated
// (::ffff:0:c000:242). Round 45's fix made Proxy.screen match every
// resolved address against the Denied IP patterns (ruleset.deniedAddr),
// but deniedAddr unwraps only the IPv4-mapped form (netip.Addr.Unmap):
// the other forms are compared as IPv6 addresses, match no IPv4 pattern,
// and are dialled. The package itself treats them as the IPv4 address they
// carry: the Guard unwraps exactly these embeddings (guard_rules.go,
// embeddings) because a NAT64 gateway, a 6to4 relay and so on deliver them
// there (the premise below checks that the Guard refuses the NAT64 form of
// 127.0.0.1 as loopback).
//
// No DNS the agent controls is needed: on an IPv6-only network with DNS64
// (AWS and GCP IPv6-only subnets, many mobile and campus networks) the
// resolver synthesises a 64:ff9b::/96 AAAA for every IPv4-only name, so
// the denied host's own name (or any name that points at it) resolves to
// [192.0.2.66, 64:ff9b::c000:242]. screen refuses the first, keeps the
// second ("skipped refused addresses ..." in the allowing decision), and
// the NAT64 gateway carries the connection to the denied address. The
// test's dialer stands in for that gateway (it routes the embedded forms
// to the same server as 192.0.2.66); nothing leaves loopback.
//
// Severity: high (a connection the policy denies is made; DESIGN
// invariant 2: "the proxy decides on the resolved address as well as the
// name").
// Code at fault: ruleset.deniedAddr (policy.go), called from Proxy.screen
// (connect.go): it unwraps IPv4-mapped addresses only, not the IPv6
// forms the Guard's embeddings table unwraps.
// Control: the literal 192.0.2.66 and a name resolving to 192.0.2.66 alone
// are refused (deny:192.0.2.66); a name with an address nobody denied is
// reached.
//
// Found by red-team round 49 (high). Fixed: ruleset.deniedAddr judges the
// IPv4 address an IPv6 one embeds in any form the guard unwraps
// (embeddedIPv4), for resolved addresses and IP literals alike.
func TestRedteam49DeniedAddressEmbedded(t *testing.T) {
	denied := netip.MustParseAddr("192.0.2.66")

	// Premise: the package's own Guard reads a NAT64 address as the IPv4
	// address it carries (NAT64 of 127.0.0.1 is refused as loopback), so
	// the forms below stand for 192.0.2.66 by the proxy's own model.
	if rule, blocked := NewGuard().Check(netip.MustParseAddr("64:ff9b::7f00:1")); !blocked || rule != "guard:loopback" {
		t.Fatalf("premise: Guard.Check(64:ff9b::7f00:1) = %q, %v; want guard:loopback (NAT64 carries the IPv4 address)", rule, blocked)
	}

	forms := []struct {
		name string
		addr netip.Addr
	}{
		{"NAT64", netip.MustParseAddr("64:ff9b::c000:242")},
		{"6to4", netip.MustParseAddr("2002:c000:242::1")},
		{"IPv4-compatible", netip.MustParseAddr("::c000:242")},
		{"IPv4-translated", netip.MustParseAddr("::ffff:0:c000:242")},
	}

	h := newHarness(t, Config{Policy: Policy{
		Allowed: []string{"*"},
		Denied:  []string{"192.0.2.66"},
	}})
	marker := "MARKER-rt49-denied-upstream\n"
	up := tcpServer(t, func(c net.Conn) {
		_, _ = io.WriteString(c, marker)
		_, _ = io.Copy(io.Discard, c)
	})
	h.res.mu.Lock()
	h.res.answers["only-denied.test"] = []netip.Addr{denied}
	h.res.answers["fine.test"] = []netip.Addr{addrOther}
	for i, f := range forms {
		// DNS64: the A record (denied) and the synthesised AAAA.
		h.res.answers["dns64-"+string(rune('a'+i))+".test"] = []netip.Addr{denied, f.addr}
		// An IPv6-only view: the synthesised AAAA alone.
		h.res.answers["v6only-"+string(rune('a'+i))+".test"] = []netip.Addr{f.addr}
	}
	h.res.mu.Unlock()
	// The network's gateway for each form delivers it to 192.0.2.66.
	h.dial.route(ap(denied, 443), up)
	h.dial.route(ap(addrOther, 443), up)
	for _, f := range forms {
		h.dial.route(ap(f.addr, 443), up)
	}

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

	// Controls.
	if st, rule, _ := connect(t, "192.0.2.66:443"); st != 403 || rule != "deny:192.0.2.66" {
		t.Fatalf("control: CONNECT 192.0.2.66:443: status %d rule %q, want 403 deny:192.0.2.66", st, rule)
	}
	if st, rule, _ := connect(t, "only-denied.test:443"); st != 403 || rule != "deny:192.0.2.66" {
		t.Fatalf("control: CONNECT only-denied.test:443 (-> 192.0.2.66): status %d rule %q, want 403 deny:192.0.2.66", st, rule)
	}
	if st, _, got := connect(t, "fine.test:443"); st != 200 || got != marker {
		t.Fatalf("control: CONNECT fine.test:443: status %d, read %q; want the upstream's marker", st, got)
	}

	// The attack.
	for i, f := range forms {
		for _, prefix := range []string{"dns64-", "v6only-"} {
			name := prefix + string(rune('a'+i)) + ".test"
			st, rule, got := connect(t, name+":443")
			if st == 200 && got == marker {
				t.Errorf("ESCAPE (%s): CONNECT %s:443 reached the denied address 192.0.2.66 through %s", f.name, name, f.addr)
			} else {
				t.Logf("%s: CONNECT %s:443: %d %s", f.name, name, st, rule)
			}
		}
	}
	var embedded []string
	for _, a := range h.dial.dials() {
		for _, f := range forms {
			if a.Addr() == f.addr {
				embedded = append(embedded, a.String())
			}
		}
	}
	if len(embedded) > 0 {
		t.Errorf("the proxy dialled IPv6 forms of the denied address 192.0.2.66: %s", strings.Join(embedded, ", "))
	}
}
