package egress

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync/atomic"
	"syscall"
)

// Guard refuses addresses that a sandboxed program must never reach,
// whatever the allow list says: loopback, private and link-local ranges,
// CGNAT, multicast, broadcast, unspecified and reserved ranges, IPv6
// unique-local and site-local, cloud metadata endpoints, every address of
// the host's own interfaces, and every address the host's routing table
// delivers to the host itself or floods (local routes such as AnyIP
// ranges, broadcast, multicast); when that table cannot be asked the
// address is refused. IPv6 addresses that embed an IPv4 address
// (mapped, compatible, translated, NAT64, 6to4, Teredo) are judged by the
// IPv4 address they carry. Documentation ranges are not refused.
//
// A Guard is safe for concurrent use. Build one with NewGuard; a zero Guard
// refuses the default table but knows none of the host's addresses.
type Guard struct {
	rules     []blockRule
	hostAddrs func() ([]netip.Addr, error)
	local     func(netip.Addr) (string, error) // nil: deliveredLocally
	host      atomic.Pointer[map[netip.Addr]struct{}]
}

// GuardOption configures NewGuard.
type GuardOption func(*Guard)

// WithBlockedPrefixes refuses the given prefixes too, under rule
// "guard:"+class.
func WithBlockedPrefixes(class string, prefixes ...netip.Prefix) GuardOption {
	return func(g *Guard) {
		for _, p := range prefixes {
			g.rules = append(g.rules, blockRule{prefix: p.Masked(), class: class})
		}
	}
}

// WithHostAddrs replaces the source of the host's own addresses (by default
// every address of every interface, from net.InterfaceAddrs).
func WithHostAddrs(f func() ([]netip.Addr, error)) GuardOption {
	return func(g *Guard) { g.hostAddrs = f }
}

// WithLocalCheck replaces the routing-table question "would a packet to
// this address stay on the host?" (tests use it to run without touching
// the host's routes).
func WithLocalCheck(f func(netip.Addr) bool) GuardOption {
	return func(g *Guard) {
		g.local = func(a netip.Addr) (string, error) {
			if f(a) {
				return classHostAddress, nil
			}
			return "", nil
		}
	}
}

// NewGuard returns a guard with the default table and the host's interface
// addresses as they are now (see Refresh). If the interfaces cannot be
// listed, the guard still refuses every fixed range; Refresh reports the
// error.
func NewGuard(opts ...GuardOption) *Guard {
	g := &Guard{hostAddrs: interfaceAddrs}
	g.rules = append(g.rules, defaultBlockRules...)
	for _, o := range opts {
		o(g)
	}
	g.rules = sortRules(g.rules)
	_ = g.Refresh() // an empty host set until a later Refresh succeeds
	return g
}

// Refresh re-reads the host's own addresses. Call it when interfaces change.
func (g *Guard) Refresh() error {
	addrs, err := g.hostAddrs()
	if err != nil {
		empty := map[netip.Addr]struct{}{}
		if g.host.Load() == nil {
			g.host.Store(&empty)
		}
		return fmt.Errorf("egress: listing host addresses: %w", err)
	}
	m := make(map[netip.Addr]struct{}, len(addrs))
	for _, a := range addrs {
		m[a.WithZone("").Unmap()] = struct{}{}
	}
	g.host.Store(&m)
	return nil
}

func interfaceAddrs() ([]netip.Addr, error) {
	as, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	out := make([]netip.Addr, 0, len(as))
	for _, a := range as {
		var ip net.IP
		switch v := a.(type) {
		case *net.IPNet:
			ip = v.IP
		case *net.IPAddr:
			ip = v.IP
		}
		if na, ok := netip.AddrFromSlice(ip); ok {
			out = append(out, na)
		}
	}
	return out, nil
}

// Check reports whether a is refused and, if so, the rule ("guard:<class>").
func (g *Guard) Check(a netip.Addr) (rule string, blocked bool) {
	rule, _, blocked = g.check(a)
	return rule, blocked
}

// check is Check that also explains an embedded IPv4 address.
func (g *Guard) check(a netip.Addr) (rule, detail string, blocked bool) {
	rule, detail, blocked = g.checkTable(a)
	if blocked {
		return rule, detail, blocked
	}
	// Last, the kernel's own answer: the snapshot of interface addresses
	// misses one the host gains later, and ranges routed to the host
	// itself (ip route add local ...) that no interface carries. A check
	// that cannot be made refuses: it would otherwise let through exactly
	// the addresses it exists to catch.
	local := g.local
	if local == nil {
		local = deliveredLocally
	}
	class, err := local(a.WithZone("").Unmap())
	switch {
	case err != nil:
		return "guard:" + classRouteCheck, "asking the host's routing table failed: " + err.Error(), true
	case class != "":
		return "guard:" + class, "the host's routing table delivers it locally", true
	}
	return "", "", false
}

// deliveredLocally asks the routing table whether a packet to a would stay
// on this host (or flood its links) and returns the guard class if so. Two
// questions, either of which refuses: the route's type (routeClass, where
// the system can tell it), and the source address the kernel picks, which
// is the destination itself for a local route.
func deliveredLocally(a netip.Addr) (string, error) {
	if class, err := routeClass(a); class != "" || err != nil {
		return class, err
	}
	local, err := sourceIsDestination(a)
	if local {
		return classHostAddress, nil
	}
	return "", err
}

// sourceIsDestination connects a UDP socket to a, which sends nothing, and
// reports whether the kernel picked a itself as the source address. No
// route is an answer (nothing to reach); any other failure is an error.
func sourceIsDestination(a netip.Addr) (bool, error) {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(a, 9)))
	if errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("choosing a source address: %w", err)
	}
	defer c.Close()
	src, ok := c.LocalAddr().(*net.UDPAddr)
	return ok && src.AddrPort().Addr().Unmap() == a, nil
}

// checkTable judges a against the fixed ranges and the host's interface
// addresses, unwrapping IPv4 embedded in IPv6.
func (g *Guard) checkTable(a netip.Addr) (rule, detail string, blocked bool) {
	if !a.IsValid() {
		return "guard:" + classInvalid, "", true
	}
	a = a.WithZone("")
	if c, ok := g.classify(a); ok {
		return "guard:" + c, "", true
	}
	if !a.Is6() {
		return "", "", false
	}
	raw := a.As16()
	for _, e := range embeddings {
		if !e.prefix.Contains(a) {
			continue
		}
		for _, v4 := range e.extract(raw) {
			if c, ok := g.classify(v4); ok {
				return "guard:" + c, fmt.Sprintf("%s address embedding %s", e.name, v4), true
			}
		}
		if e.blockAll != "" {
			return "guard:" + e.blockAll, e.name + " range", true
		}
		return "", "", false
	}
	return "", "", false
}

// classify looks a (IPv4 or IPv6, no unwrapping) up in the table and the
// host's own addresses.
func (g *Guard) classify(a netip.Addr) (string, bool) {
	rules := g.rules
	if rules == nil {
		rules = defaultBlockRules // a zero Guard still guards
	}
	for _, r := range rules {
		if r.prefix.Contains(a) {
			return r.class, true
		}
	}
	if hp := g.host.Load(); hp != nil {
		if _, ok := (*hp)[a]; ok {
			return classHostAddress, true
		}
	}
	return "", false
}
