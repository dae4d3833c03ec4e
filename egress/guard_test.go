package egress

import (
	"errors"
	"net/netip"
	"strings"
	"syscall"
	"testing"
)

// teredo builds a Teredo address for server s and client c (the client
// address is stored inverted).
func teredo(s, c string) string {
	sv, cv := netip.MustParseAddr(s).As4(), netip.MustParseAddr(c).As4()
	var a [16]byte
	a[0], a[1] = 0x20, 0x01
	copy(a[4:8], sv[:])
	for i := range 4 {
		a[12+i] = ^cv[i]
	}
	return netip.AddrFrom16(a).String()
}

func TestGuardCheck(t *testing.T) {
	g := NewGuard(WithHostAddrs(func() ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("203.0.113.77"), netip.MustParseAddr("2001:db8:77::1")}, nil
	}))
	tests := []struct {
		addr string
		rule string // "" means allowed
	}{
		// Loopback.
		{"127.0.0.1", "guard:loopback"},
		{"127.255.255.254", "guard:loopback"},
		{"::1", "guard:loopback"},
		// RFC 1918.
		{"10.0.0.1", "guard:private"},
		{"10.255.255.255", "guard:private"},
		{"172.16.0.1", "guard:private"},
		{"172.31.255.255", "guard:private"},
		{"192.168.1.1", "guard:private"},
		{"172.15.255.255", ""},
		{"172.32.0.1", ""},
		// Link-local.
		{"169.254.1.1", "guard:link-local"},
		{"fe80::1", "guard:link-local"},
		{"fe80::1%eth0", "guard:link-local"},
		{"febf::1", "guard:link-local"},
		// CGNAT.
		{"100.64.0.1", "guard:cgnat"},
		{"100.127.255.255", "guard:cgnat"},
		{"100.63.255.255", ""},
		{"100.128.0.1", ""},
		// Multicast, broadcast, unspecified, this network, reserved.
		{"224.0.0.1", "guard:multicast"},
		{"239.255.255.250", "guard:multicast"},
		{"ff02::1", "guard:multicast"},
		{"ff0e::1", "guard:multicast"},
		{"255.255.255.255", "guard:broadcast"},
		{"0.0.0.0", "guard:unspecified"},
		{"::", "guard:unspecified"},
		{"0.1.2.3", "guard:this-network"},
		{"240.0.0.1", "guard:reserved"},
		{"255.255.255.254", "guard:reserved"},
		{"192.0.0.8", "guard:special-purpose"},
		{"100::1", "guard:discard"},
		// Benchmarking.
		{"198.18.0.1", "guard:benchmarking"},
		{"198.19.255.255", "guard:benchmarking"},
		{"198.20.0.1", ""},
		{"2001:2::1", "guard:benchmarking"},
		// IPv6 unique-local and site-local.
		{"fc00::1", "guard:unique-local"},
		{"fd12:3456::1", "guard:unique-local"},
		{"fec0::1", "guard:site-local"},
		{"feff::1", "guard:site-local"},
		// Cloud metadata.
		{"169.254.169.254", "guard:metadata"},
		{"169.254.170.2", "guard:metadata"},
		{"fd00:ec2::254", "guard:metadata"},
		{"100.100.100.200", "guard:metadata"},
		{"168.63.129.16", "guard:metadata"},
		{"192.0.0.192", "guard:metadata"},
		// IPv4 embedded in IPv6, judged as IPv4.
		{"::ffff:127.0.0.1", "guard:loopback"},
		{"::ffff:10.1.2.3", "guard:private"},
		{"::ffff:169.254.169.254", "guard:metadata"},
		{"::ffff:192.0.2.1", ""},
		{"::127.0.0.1", "guard:loopback"},     // IPv4-compatible
		{"::a00:1", "guard:private"},          // ::10.0.0.1
		{"::c000:201", ""},                    // ::192.0.2.1
		{"::ffff:0:7f00:1", "guard:loopback"}, // IPv4-translated
		{"64:ff9b::7f00:1", "guard:loopback"},
		{"64:ff9b::a9fe:a9fe", "guard:metadata"},
		{"64:ff9b::c000:20a", ""},
		{"64:ff9b:1::7f00:1", "guard:loopback"},
		{"64:ff9b:1::c000:20a", "guard:nat64-local"},
		{"2002:7f00:1::1", "guard:loopback"},
		{"2002:a9fe:a9fe::", "guard:metadata"},
		{"2002:c000:20a::1", ""},
		{teredo("192.0.2.1", "127.0.0.1"), "guard:loopback"},
		{teredo("192.0.2.1", "10.0.0.5"), "guard:private"},
		{teredo("127.0.0.1", "192.0.2.45"), "guard:loopback"},
		{teredo("192.0.2.1", "192.0.2.45"), ""},
		// Documentation ranges are reachable (tests put upstreams there).
		{"192.0.2.1", ""},
		{"198.51.100.1", ""},
		{"203.0.113.1", ""},
		{"2001:db8::1", ""},
		// Public.
		{"8.8.4.4", ""},
		{"2606:4700::1", ""},
		// The host's own addresses, in every form.
		{"203.0.113.77", "guard:host-address"},
		{"::ffff:203.0.113.77", "guard:host-address"},
		{"64:ff9b::cb00:714d", "guard:host-address"},
		{"2001:db8:77::1", "guard:host-address"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			rule, blocked := g.Check(netip.MustParseAddr(tt.addr))
			if blocked != (tt.rule != "") || rule != tt.rule {
				t.Fatalf("Check(%s) = %q, %v; want %q", tt.addr, rule, blocked, tt.rule)
			}
		})
	}
	if rule, blocked := g.Check(netip.Addr{}); !blocked || rule != "guard:invalid" {
		t.Errorf("Check(zero) = %q, %v; want blocked", rule, blocked)
	}
}

func TestGuardEmbeddedDetail(t *testing.T) {
	g := NewGuard()
	_, detail, blocked := g.check(netip.MustParseAddr("64:ff9b::7f00:1"))
	if !blocked || !strings.Contains(detail, "NAT64") || !strings.Contains(detail, "127.0.0.1") {
		t.Fatalf("detail %q, blocked %v", detail, blocked)
	}
}

func TestGuardRealInterfaces(t *testing.T) {
	addrs, err := interfaceAddrs()
	if err != nil {
		t.Skip("cannot list interfaces:", err)
	}
	g := NewGuard()
	for _, a := range addrs {
		if _, blocked := g.Check(a); !blocked {
			t.Errorf("host interface address %s is not blocked", a)
		}
	}
}

func TestGuardRefresh(t *testing.T) {
	host := []netip.Addr{netip.MustParseAddr("198.51.100.5")}
	var fail error
	g := NewGuard(WithHostAddrs(func() ([]netip.Addr, error) { return host, fail }))
	if _, b := g.Check(netip.MustParseAddr("198.51.100.5")); !b {
		t.Fatal("initial host address not blocked")
	}
	host = []netip.Addr{netip.MustParseAddr("198.51.100.6")}
	if err := g.Refresh(); err != nil {
		t.Fatal(err)
	}
	if _, b := g.Check(netip.MustParseAddr("198.51.100.5")); b {
		t.Error("old host address still blocked after Refresh")
	}
	if rule, b := g.Check(netip.MustParseAddr("198.51.100.6")); !b || rule != "guard:host-address" {
		t.Error("new host address not blocked after Refresh")
	}
	fail = errors.New("boom")
	if err := g.Refresh(); err == nil {
		t.Error("Refresh did not report the error")
	}
	if _, b := g.Check(netip.MustParseAddr("198.51.100.6")); !b {
		t.Error("a failed Refresh dropped the known host addresses")
	}
}

func TestGuardExtraPrefixes(t *testing.T) {
	g := NewGuard(WithBlockedPrefixes("corp", netip.MustParsePrefix("203.0.113.0/25")))
	if rule, b := g.Check(netip.MustParseAddr("203.0.113.9")); !b || rule != "guard:corp" {
		t.Errorf("extra prefix: %q %v", rule, b)
	}
	if _, b := g.Check(netip.MustParseAddr("203.0.113.200")); b {
		t.Error("address outside the extra prefix blocked")
	}
}

func TestZeroGuardStillGuards(t *testing.T) {
	var g Guard
	for _, a := range []string{"127.0.0.1", "::ffff:10.0.0.1", "169.254.169.254"} {
		if _, blocked := g.Check(netip.MustParseAddr(a)); !blocked {
			t.Errorf("zero Guard let %s through", a)
		}
	}
}

func TestGuardAsksTheRoutingTable(t *testing.T) {
	doc := netip.MustParseAddr("203.0.113.7")
	local := NewGuard(WithHostAddrs(func() ([]netip.Addr, error) { return nil, nil }),
		WithLocalCheck(func(a netip.Addr) bool { return a == doc }))
	if rule, blocked := local.Check(doc); !blocked || rule != "guard:"+classHostAddress {
		t.Fatalf("a locally delivered address: %q %v", rule, blocked)
	}
	if _, blocked := local.Check(netip.MustParseAddr("203.0.113.8")); blocked {
		t.Fatal("an address routed elsewhere was refused")
	}
	// The real routing table: the host's own loopback and addresses are
	// local; the guard refuses loopback by its table before asking.
	if class, err := deliveredLocally(netip.MustParseAddr("127.0.0.1")); err != nil || class != classHostAddress {
		t.Fatalf("127.0.0.1 is not delivered locally? %q %v", class, err)
	}
}

// TestGuardFailsClosed: when the routing table cannot be asked, the guard
// refuses the address and says why, rather than call it remote.
func TestGuardFailsClosed(t *testing.T) {
	g := NewGuard(WithHostAddrs(func() ([]netip.Addr, error) { return nil, nil }))
	g.local = func(netip.Addr) (string, error) { return "", syscall.EMFILE }
	a := netip.MustParseAddr("203.0.113.7")
	rule, detail, blocked := g.check(a)
	if !blocked || rule != "guard:"+classRouteCheck || !strings.Contains(detail, "too many open files") {
		t.Fatalf("a failed routing check: rule %q detail %q blocked %v", rule, detail, blocked)
	}
}
