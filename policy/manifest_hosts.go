package policy

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Port selectors of a HostPattern besides a concrete port.
const (
	PortDefault = 0  // no ":port": ports 80 and 443
	PortAny     = -1 // ":*": every port
)

// HostPattern is one entry of a network allow or deny list (also the hosts of
// a credential). The syntax is the egress proxy's (package egress):
//
//	api.example.com        exactly that host
//	*.example.com          any name below example.com, not example.com itself
//	203.0.113.7, 2001:db8::1, [2001:db8::1]   exactly that address
//	*                      every host (deny lists only: "everything not allowed")
//
// Each form takes an optional ":port", or ":*" for every port; without one,
// only ports 80 and 443 match in an allow list, and every port in a deny
// list (the proxy's Policy.Denied). Names are case-insensitive, one trailing dot is
// ignored and internationalised names are compared in their punycode form. A
// name whose last label is numeric must be a canonical dotted-quad address.
type HostPattern struct {
	Raw      string     // as written
	Any      bool       // "*": every host
	Wildcard bool       // "*." prefix: names below Host
	Host     string     // lower-case punycode name without "*." or trailing dot, or the IP in text form
	Addr     netip.Addr // valid for an IP literal
	Port     int        // a port, PortDefault or PortAny
	Pos      Position   // where Raw is in the manifest (zero outside manifests)
}

// String returns the canonical form of the pattern.
func (p HostPattern) String() string {
	var h string
	switch {
	case p.Any:
		h = "*"
	case p.Wildcard:
		h = "*." + p.Host
	case p.Addr.Is6() && p.Port != PortDefault:
		h = "[" + p.Host + "]"
	default:
		h = p.Host
	}
	switch p.Port {
	case PortDefault:
		return h
	case PortAny:
		return h + ":*"
	}
	return h + ":" + strconv.Itoa(p.Port)
}

// ParseHostPattern parses and normalises one host pattern.
func ParseHostPattern(s string) (HostPattern, error) {
	p := HostPattern{Raw: s}
	switch {
	case s == "":
		return p, errors.New("empty host pattern")
	case strings.TrimSpace(s) != s:
		return p, fmt.Errorf("%q has leading or trailing white space", s)
	case strings.Contains(s, "://"):
		hint := ""
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			hint = fmt.Sprintf(": %q", u.Host)
		}
		return p, fmt.Errorf("%q is a URL; write only the host%s", s, hint)
	case strings.ContainsAny(s, "/?#@"):
		return p, fmt.Errorf("%q is not a host pattern: write a host name, *.domain or an IP address, optionally with :port (no path, query or user)", s)
	}
	host, port, err := splitHostPort(s)
	if err != nil {
		return p, fmt.Errorf("%q: %w", s, err)
	}
	p.Port = port
	switch {
	case host == "*":
		p.Any = true
		return p, nil
	case strings.HasPrefix(host, "*."):
		p.Wildcard = true
		host = host[2:]
		if strings.Contains(host, "*") {
			return p, fmt.Errorf("%q: only one leading *. wildcard label is allowed, as in *.example.com", s)
		}
	case strings.Contains(host, "*"):
		return p, fmt.Errorf("%q: * may only stand alone or as the whole first label, as in *.example.com", s)
	}
	name, addr, err := parseHostName(host)
	if err != nil {
		return p, fmt.Errorf("%q: %w", s, err)
	}
	if addr.IsValid() {
		if p.Wildcard {
			return p, fmt.Errorf("%q: an IP address cannot have a *. wildcard", s)
		}
		p.Addr, p.Host = addr, addr.String()
		return p, nil
	}
	p.Host = name
	return p, nil
}

// splitHostPort separates an optional ":port" or ":*"; a bare IPv6 address
// has none. Brackets are removed from the host.
func splitHostPort(s string) (string, int, error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, errors.New("missing ] after the IPv6 address")
		}
		host, rest := s[1:end], s[end+1:]
		if a, err := netip.ParseAddr(host); err != nil || !a.Is6() {
			return "", 0, errors.New("only IPv6 addresses go in [brackets]")
		}
		if rest == "" {
			return host, PortDefault, nil
		}
		if !strings.HasPrefix(rest, ":") {
			return "", 0, errors.New("expected :port after ]")
		}
		port, err := parsePort(rest[1:])
		return host, port, err
	}
	switch strings.Count(s, ":") {
	case 0:
		return s, PortDefault, nil
	case 1:
		i := strings.IndexByte(s, ':')
		port, err := parsePort(s[i+1:])
		return s[:i], port, err
	}
	if _, err := netip.ParseAddr(s); err != nil {
		return "", 0, errors.New("not a valid IPv6 address (write [2001:db8::1]:443 to give a port)")
	}
	return s, PortDefault, nil
}

func parsePort(port string) (int, error) {
	if port == "*" {
		return PortAny, nil
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("port %q must be a number from 1 to 65535, or * for every port", port)
	}
	return int(n), nil
}

// parseHostName normalises a host: an IP literal (returned as addr) or a DNS
// name, lower-cased, one trailing dot removed, IDN converted to punycode.
func parseHostName(h string) (name string, addr netip.Addr, err error) {
	if strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		if err != nil {
			return "", addr, errors.New("not a valid IPv6 address")
		}
		if a.Zone() != "" {
			return "", addr, fmt.Errorf("IPv6 zones (%%%s) are not supported", a.Zone())
		}
		return "", a, nil
	}
	name = strings.TrimSuffix(h, ".")
	if isASCII(name) {
		name = strings.ToLower(name)
	} else if name, err = idna.Lookup.ToASCII(name); err != nil {
		return "", addr, fmt.Errorf("not a valid internationalised host name: %v", err)
	}
	if name == "" {
		return "", addr, errors.New("empty host name")
	}
	if len(name) > 253 {
		return "", addr, errors.New("host name longer than 253 characters")
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" {
			return "", addr, errors.New("empty label (two dots in a row)")
		}
		if len(l) > 63 {
			return "", addr, fmt.Errorf("label %q is longer than 63 characters", l)
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", addr, fmt.Errorf("character %q is not allowed in a host name", c)
			}
		}
	}
	// A numeric last label makes resolvers read the name as an IPv4 address
	// (127.1, 2130706433, 0x7f.1): only the canonical dotted quad is taken.
	if numericLabel(labels[len(labels)-1]) {
		if a, err := netip.ParseAddr(name); err == nil && a.Is4() && a.String() == name {
			return "", a, nil
		}
		return "", addr, errors.New("ends in a number but is not a canonical IPv4 address (write it as a.b.c.d)")
	}
	return name, addr, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// numericLabel reports a label of decimal digits, or 0x and hex digits.
func numericLabel(l string) bool {
	if rest, ok := strings.CutPrefix(l, "0x"); ok {
		return strings.Trim(rest, "0123456789abcdef") == ""
	}
	return l != "" && strings.Trim(l, "0123456789") == ""
}

// Match reports whether the pattern matches host on port. host is a name or
// an IP literal as in a request; one that is not valid matches nothing.
func (p HostPattern) Match(host string, port int) bool {
	return p.matchPort(port) && p.matchHost(host)
}

// matchHost is Match without the port.
func (p HostPattern) matchHost(host string) bool {
	name, addr, err := parseTarget(host)
	switch {
	case err != nil:
		return false
	case p.Any:
		return true
	case addr.IsValid():
		return p.Addr.IsValid() && p.Addr == addr
	case p.Addr.IsValid():
		return false
	case p.Wildcard:
		return len(name) > len(p.Host)+1 && strings.HasSuffix(name, p.Host) && name[len(name)-len(p.Host)-1] == '.'
	}
	return name == p.Host
}

// parseTarget normalises a request's host: a name, an IP literal, or an IPv6
// literal in brackets.
func parseTarget(host string) (string, netip.Addr, error) {
	if inner, ok := strings.CutPrefix(host, "["); ok {
		inner, ok = strings.CutSuffix(inner, "]")
		a, err := netip.ParseAddr(inner)
		if !ok || err != nil || !a.Is6() || a.Zone() != "" {
			return "", netip.Addr{}, errors.New("not a bracketed IPv6 address")
		}
		return "", a, nil
	}
	return parseHostName(host)
}

func (p HostPattern) matchPort(port int) bool {
	switch p.Port {
	case PortAny:
		return true
	case PortDefault:
		return port == 80 || port == 443
	}
	return port == p.Port
}

// Covers reports whether every host and port q matches is also matched by p.
func (p HostPattern) Covers(q HostPattern) bool {
	if !p.coversPort(q.Port) {
		return false
	}
	switch {
	case p.Any:
		return true
	case q.Any:
		return false
	case q.Wildcard:
		return p.Wildcard && (q.Host == p.Host || strings.HasSuffix(q.Host, "."+p.Host))
	}
	return p.matchHost(q.Host)
}

// coversPort reports whether every port q selects is one p selects.
func (p HostPattern) coversPort(q int) bool {
	switch {
	case p.Port == PortAny:
		return true
	case q == PortAny:
		return false
	case p.Port == PortDefault:
		return q == PortDefault || q == 80 || q == 443
	}
	return q == p.Port
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
	a = a.Unmap()
	for _, p := range neverReachableRanges {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
