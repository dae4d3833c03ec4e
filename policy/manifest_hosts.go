package policy

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// HostPattern is one entry of a network allow or deny list (also the hosts of
// a credential). The syntax, shared with the egress proxy:
//
//	api.example.com        exactly that host, any port
//	*.example.com          any subdomain at any depth, not example.com itself
//	api.example.com:443    that host on port 443 only (also *.example.com:443)
//	203.0.113.7, 2001:db8::1, [2001:db8::1]:443   an IP literal
//	*                      every host (deny lists only: "everything not allowed")
//
// Host names are case-insensitive and a trailing dot is ignored.
type HostPattern struct {
	Raw      string     // as written
	Any      bool       // "*"
	Wildcard bool       // "*." prefix: subdomains of Host
	Host     string     // lower-case name without "*." or trailing dot, or the canonical IP
	Addr     netip.Addr // valid for an IP literal
	Port     uint16     // 0: any port
	Pos      Position   // where Raw is in the manifest (zero outside manifests)
}

// String returns the canonical form of the pattern.
func (p HostPattern) String() string {
	var h string
	switch {
	case p.Any:
		return "*"
	case p.Wildcard:
		h = "*." + p.Host
	case p.Addr.Is6() && p.Port != 0:
		h = "[" + p.Host + "]"
	default:
		h = p.Host
	}
	if p.Port != 0 {
		h += ":" + strconv.Itoa(int(p.Port))
	}
	return h
}

// ParseHostPattern parses and normalises one host pattern.
func ParseHostPattern(s string) (HostPattern, error) {
	p := HostPattern{Raw: s}
	switch {
	case s == "":
		return p, errors.New("empty host pattern")
	case s == "*":
		p.Any = true
		return p, nil
	case strings.Contains(s, "://"):
		hint := ""
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			hint = fmt.Sprintf(": %q", u.Host)
		}
		return p, fmt.Errorf("%q is a URL; write only the host%s", s, hint)
	case strings.ContainsAny(s, "/?#@ \t"):
		return p, fmt.Errorf("%q is not a host pattern: write a host name, *.domain or an IP address, optionally with :port", s)
	}
	host, port, err := splitHostPort(s)
	if err != nil {
		return p, err
	}
	p.Port = port
	if strings.HasPrefix(host, "*.") {
		p.Wildcard = true
		host = host[2:]
	}
	if strings.Contains(host, "*") {
		return p, fmt.Errorf("%q: * may only stand alone or as the whole first label, as in *.example.com", s)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if p.Wildcard {
			return p, fmt.Errorf("%q: an IP address cannot have a *. wildcard", s)
		}
		if a.Zone() != "" {
			return p, fmt.Errorf("%q: IPv6 zones (%%%s) are not supported", s, a.Zone())
		}
		a = a.Unmap()
		p.Addr, p.Host = a, a.String()
		return p, nil
	}
	if strings.Contains(host, ":") {
		return p, fmt.Errorf("%q is not a valid IPv6 address (write [addr]:port to give a port)", s)
	}
	name, err := normaliseHostName(host)
	if err != nil {
		return p, fmt.Errorf("%q: %w", s, err)
	}
	p.Host = name
	return p, nil
}

// splitHostPort separates an optional :port; a bare IPv6 address has none.
func splitHostPort(s string) (string, uint16, error) {
	host, portStr := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, fmt.Errorf("%q: missing ] after the IPv6 address", s)
		}
		host, rest := s[1:end], s[end+1:]
		if a, err := netip.ParseAddr(host); err != nil || !a.Is6() {
			return "", 0, fmt.Errorf("%q: only IPv6 addresses go in [brackets]", s)
		}
		if rest == "" {
			return host, 0, nil
		}
		if !strings.HasPrefix(rest, ":") {
			return "", 0, fmt.Errorf("%q: expected :port after ]", s)
		}
		port, err := parsePort(s, rest[1:])
		return host, port, err
	case strings.Count(s, ":") == 1:
		i := strings.IndexByte(s, ':')
		host, portStr = s[:i], s[i+1:]
		port, err := parsePort(s, portStr)
		return host, port, err
	}
	return host, 0, nil
}

func parsePort(s, port string) (uint16, error) {
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q: port %q must be a number from 1 to 65535", s, port)
	}
	return uint16(n), nil
}

// normaliseHostName lower-cases a DNS name, drops a trailing dot and checks
// its labels.
func normaliseHostName(h string) (string, error) {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" {
		return "", errors.New("empty host name")
	}
	if len(h) > 253 {
		return "", errors.New("host name longer than 253 characters")
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" {
			return "", errors.New("empty label (two dots in a row)")
		}
		if len(l) > 63 {
			return "", fmt.Errorf("label %q is longer than 63 characters", l)
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return "", fmt.Errorf("label %q starts or ends with a hyphen", l)
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				if r > 127 {
					return "", errors.New("non-ASCII host name; write its xn-- (punycode) form")
				}
				return "", fmt.Errorf("character %q is not allowed in a host name", r)
			}
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return "", errors.New("neither a valid IP address nor a host name (the last label is all digits)")
	}
	return h, nil
}

// Match reports whether the pattern matches host on port. host may be a name
// (any case, optional trailing dot) or an IP literal.
func (p HostPattern) Match(host string, port uint16) bool {
	if p.Any {
		return true
	}
	if p.Port != 0 && p.Port != port {
		return false
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return p.Addr.IsValid() && p.Addr == a.Unmap()
	}
	if p.Addr.IsValid() {
		return false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if p.Wildcard {
		return len(host) > len(p.Host) && strings.HasSuffix(host, p.Host) && host[len(host)-len(p.Host)-1] == '.'
	}
	return host == p.Host
}

// Covers reports whether every host and port q matches is also matched by p.
func (p HostPattern) Covers(q HostPattern) bool {
	switch {
	case p.Any:
		return true
	case q.Any:
		return false
	case p.Port != 0 && p.Port != q.Port:
		return false
	case q.Wildcard:
		return p.Wildcard && (q.Host == p.Host || strings.HasSuffix(q.Host, "."+p.Host))
	}
	return p.Match(q.Host, q.Port)
}

// neverReachableRanges are addresses the egress proxy's address guard always
// refuses (DESIGN.md, "Default policy"): an allow entry for them is dead.
var neverReachableRanges = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("::/128"),
	netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
}

func neverReachable(a netip.Addr) bool {
	for _, p := range neverReachableRanges {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
