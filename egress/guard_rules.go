package egress

import (
	"cmp"
	"net/netip"
	"slices"
)

// blockRule is one row of the address guard's table: addresses in prefix are
// refused with rule "guard:"+class.
type blockRule struct {
	prefix netip.Prefix
	class  string
}

// Guard classes.
const (
	classUnspecified  = "unspecified"
	classThisNetwork  = "this-network"
	classLoopback     = "loopback"
	classPrivate      = "private"
	classCGNAT        = "cgnat"
	classLinkLocal    = "link-local"
	classMetadata     = "metadata"
	classSpecial      = "special-purpose"
	classBenchmarking = "benchmarking"
	classMulticast    = "multicast"
	classReserved     = "reserved"
	classBroadcast    = "broadcast"
	classULA          = "unique-local"
	classSiteLocal    = "site-local"
	classDiscard      = "discard"
	classNAT64Local   = "nat64-local"
	classHostAddress  = "host-address"
	classRouteCheck   = "route-check-failed" // the routing table could not be asked
	classInvalid      = "invalid"
)

// defaultBlockRules lists every range the guard refuses. Documentation ranges
// (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) are
// deliberately absent. IPv6 forms that embed an IPv4 address are not listed
// here: they are unwrapped (see embeddings) and the IPv4 address is judged.
var defaultBlockRules = sortRules([]blockRule{
	// Cloud metadata and instance services, named before their wider ranges.
	{mustPrefix("169.254.169.254/32"), classMetadata}, // AWS, GCP, Azure, OCI, DigitalOcean, …
	{mustPrefix("169.254.169.253/32"), classMetadata}, // AWS VPC DNS
	{mustPrefix("169.254.169.123/32"), classMetadata}, // AWS time sync
	{mustPrefix("169.254.170.2/32"), classMetadata},   // AWS ECS task credentials
	{mustPrefix("169.254.170.23/32"), classMetadata},  // AWS EKS pod identity
	{mustPrefix("169.254.0.23/32"), classMetadata},    // Tencent Cloud
	{mustPrefix("169.254.42.42/32"), classMetadata},   // Scaleway
	{mustPrefix("100.100.100.200/32"), classMetadata}, // Alibaba Cloud
	{mustPrefix("192.0.0.192/32"), classMetadata},     // Oracle Cloud (legacy)
	{mustPrefix("168.63.129.16/32"), classMetadata},   // Azure WireServer (a public address)
	{mustPrefix("fd00:ec2::254/128"), classMetadata},  // AWS IMDS over IPv6
	{mustPrefix("fd00:ec2::23/128"), classMetadata},   // AWS EKS pod identity over IPv6
	{mustPrefix("fd20:ce::254/128"), classMetadata},   // GCP metadata over IPv6

	// IPv4.
	{mustPrefix("0.0.0.0/32"), classUnspecified},
	{mustPrefix("0.0.0.0/8"), classThisNetwork},
	{mustPrefix("10.0.0.0/8"), classPrivate},
	{mustPrefix("100.64.0.0/10"), classCGNAT},
	{mustPrefix("127.0.0.0/8"), classLoopback},
	{mustPrefix("169.254.0.0/16"), classLinkLocal},
	{mustPrefix("172.16.0.0/12"), classPrivate},
	{mustPrefix("192.0.0.0/24"), classSpecial},   // IETF protocol assignments
	{mustPrefix("192.88.99.0/24"), classSpecial}, // deprecated 6to4 relay anycast
	{mustPrefix("192.168.0.0/16"), classPrivate},
	{mustPrefix("198.18.0.0/15"), classBenchmarking},
	{mustPrefix("224.0.0.0/4"), classMulticast},
	{mustPrefix("240.0.0.0/4"), classReserved},
	{mustPrefix("255.255.255.255/32"), classBroadcast},

	// IPv6.
	{mustPrefix("::/128"), classUnspecified},
	{mustPrefix("::1/128"), classLoopback},
	{mustPrefix("100::/64"), classDiscard},
	{mustPrefix("2001:2::/48"), classBenchmarking},
	{mustPrefix("2001:10::/28"), classReserved}, // ORCHID (deprecated)
	{mustPrefix("2001:20::/28"), classReserved}, // ORCHIDv2
	{mustPrefix("fc00::/7"), classULA},
	{mustPrefix("fe80::/10"), classLinkLocal},
	{mustPrefix("fec0::/10"), classSiteLocal},
	{mustPrefix("ff00::/8"), classMulticast},
})

// embedding describes an IPv6 range that carries an IPv4 address.
type embedding struct {
	prefix netip.Prefix
	name   string
	// extract returns the embedded IPv4 addresses to judge.
	extract func(a [16]byte) []netip.Addr
	// blockAll refuses the whole range even when the embedded address is fine.
	blockAll string
}

func last32(a [16]byte) []netip.Addr {
	return []netip.Addr{netip.AddrFrom4([4]byte(a[12:16]))}
}

// embeddings lists the IPv6 forms that embed IPv4, most specific first.
var embeddings = []embedding{
	{prefix: mustPrefix("::ffff:0:0/96"), name: "IPv4-mapped", extract: last32},
	{prefix: mustPrefix("::ffff:0:0:0/96"), name: "IPv4-translated", extract: last32},
	{prefix: mustPrefix("::/96"), name: "IPv4-compatible", extract: last32},
	{prefix: mustPrefix("64:ff9b::/96"), name: "NAT64", extract: last32},
	// Local-use NAT64 (RFC 8215) may embed the IPv4 address at several
	// offsets; it is never a public destination, so the whole range is
	// refused, naming the embedded address's class when the /96 form is
	// blocked.
	{prefix: mustPrefix("64:ff9b:1::/48"), name: "local-use NAT64", extract: last32, blockAll: classNAT64Local},
	{prefix: mustPrefix("2002::/16"), name: "6to4", extract: func(a [16]byte) []netip.Addr {
		return []netip.Addr{netip.AddrFrom4([4]byte(a[2:6]))}
	}},
	// Teredo: the server address in bits 32-63, the client address
	// obfuscated (inverted) in the last 32 bits. Both are judged.
	{prefix: mustPrefix("2001::/32"), name: "Teredo", extract: func(a [16]byte) []netip.Addr {
		client := [4]byte{^a[12], ^a[13], ^a[14], ^a[15]}
		return []netip.Addr{netip.AddrFrom4(client), netip.AddrFrom4([4]byte(a[4:8]))}
	}},
}

// embeddedIPv4 returns the IPv4 addresses the IPv6 address a carries in
// one of the forms of embeddings (none for another address).
func embeddedIPv4(a netip.Addr) []netip.Addr {
	if !a.Is6() {
		return nil
	}
	a = a.WithZone("")
	for _, e := range embeddings {
		if e.prefix.Contains(a) {
			return e.extract(a.As16())
		}
	}
	return nil
}

func mustPrefix(s string) netip.Prefix {
	return netip.MustParsePrefix(s).Masked()
}

// sortRules orders rules most specific first so the first match names the
// narrowest class.
func sortRules(rs []blockRule) []blockRule {
	slices.SortStableFunc(rs, func(a, b blockRule) int {
		return cmp.Compare(b.prefix.Bits(), a.prefix.Bits())
	})
	return rs
}
