package egress

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// ErrInvalidHost is wrapped by every error about a host name or address that
// cannot be a proxy target or a pattern.
var ErrInvalidHost = errors.New("invalid host")

// NonCanonicalIPError reports a host spelled as an IPv4 address in a form that
// some resolvers accept (decimal integer, hex, octal, fewer than four parts)
// but that is not the canonical dotted quad. Such hosts are refused outright:
// they are never resolved as names, so they cannot be used to reach, say,
// 127.0.0.1 through "2130706433" or "0x7f.1".
type NonCanonicalIPError struct {
	Host string     // as given
	Addr netip.Addr // what an inet_aton style parser would make of it
}

// Error describes the spelling and the address it stands for.
func (e *NonCanonicalIPError) Error() string {
	return fmt.Sprintf("%q is a non-canonical spelling of the IPv4 address %s", e.Host, e.Addr)
}

// Unwrap makes errors.Is(err, ErrInvalidHost) hold.
func (e *NonCanonicalIPError) Unwrap() error { return ErrInvalidHost }

// target is a normalised destination: either a DNS name in lower-case ASCII
// without a trailing dot, or an IP address (never both).
type target struct {
	name string
	ip   netip.Addr
	port int
}

// isIP reports whether the target is an IP literal.
func (t target) isIP() bool { return t.ip.IsValid() }

// host returns the name or the IP address in text form.
func (t target) host() string {
	if t.isIP() {
		return t.ip.String()
	}
	return t.name
}

// String returns host:port with brackets around IPv6 addresses.
func (t target) String() string {
	return net.JoinHostPort(t.host(), strconv.Itoa(t.port))
}

// hostHeader is the target as a Host header names it: its normalised host
// (an IPv6 address in brackets), with the port unless it is def. The
// request goes upstream under the name the policy judged, not under the
// client's spelling of it: one that IDNA maps (full-width letters, soft
// hyphens) is judged as the plain name, and a front end shared with it
// would route the spelling elsewhere.
func (t target) hostHeader(def int) string {
	if t.port != def {
		return t.String()
	}
	if t.isIP() && t.ip.Is6() {
		return "[" + t.ip.String() + "]"
	}
	return t.host()
}

const (
	maxNameLen  = 253
	maxLabelLen = 63
)

// parseHost normalises a host as it appears in a request or a pattern: an IP
// literal (IPv4 dotted quad, IPv6 with or without brackets, no zone) or a DNS
// name, lower-cased, trailing dot removed, IDN converted to punycode.
func parseHost(s string) (target, error) {
	if s == "" {
		return target{}, fmt.Errorf("%w: empty host", ErrInvalidHost)
	}
	if strings.HasPrefix(s, "[") {
		if !strings.HasSuffix(s, "]") {
			return target{}, fmt.Errorf("%w: %q: unbalanced bracket", ErrInvalidHost, s)
		}
		a, err := netip.ParseAddr(s[1 : len(s)-1])
		if err != nil || !a.Is6() {
			return target{}, fmt.Errorf("%w: %q: not an IPv6 address", ErrInvalidHost, s)
		}
		if a.Zone() != "" {
			return target{}, fmt.Errorf("%w: %q: zoned addresses are not allowed", ErrInvalidHost, s)
		}
		return target{ip: a}, nil
	}
	if strings.Contains(s, ":") {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return target{}, fmt.Errorf("%w: %q: not an IPv6 address", ErrInvalidHost, s)
		}
		if a.Zone() != "" {
			return target{}, fmt.Errorf("%w: %q: zoned addresses are not allowed", ErrInvalidHost, s)
		}
		return target{ip: a}, nil
	}
	name, err := normaliseName(s)
	if err != nil {
		return target{}, err
	}
	if a, ok, err := numericHost(name, s); err != nil {
		return target{}, err
	} else if ok {
		return target{ip: a}, nil
	}
	return target{name: name}, nil
}

// normaliseName lower-cases s, drops one trailing dot, converts IDN labels to
// punycode and checks the label syntax.
func normaliseName(s string) (string, error) {
	orig := s
	s = strings.TrimSuffix(s, ".")
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		s = strings.ToLower(s)
	} else {
		a, err := idna.Lookup.ToASCII(s)
		if err != nil {
			return "", fmt.Errorf("%w: %q: %v", ErrInvalidHost, orig, err)
		}
		s = a
	}
	if s == "" {
		return "", fmt.Errorf("%w: %q: empty name", ErrInvalidHost, orig)
	}
	if len(s) > maxNameLen {
		return "", fmt.Errorf("%w: %q: longer than %d characters", ErrInvalidHost, orig, maxNameLen)
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" {
			return "", fmt.Errorf("%w: %q: empty label", ErrInvalidHost, orig)
		}
		if len(label) > maxLabelLen {
			return "", fmt.Errorf("%w: %q: label longer than %d characters", ErrInvalidHost, orig, maxLabelLen)
		}
		for i := 0; i < len(label); i++ {
			if !nameByte(label[i]) {
				return "", fmt.Errorf("%w: %q: character %q not allowed in a host name", ErrInvalidHost, orig, label[i])
			}
		}
	}
	return s, nil
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// numericHost handles names whose last label is numeric (all digits, or 0x
// followed by hex digits). Such a name is never a DNS name: it is either a
// canonical dotted quad (returned as an address) or refused, with the address
// an inet_aton style parser would see named in the error.
func numericHost(name, orig string) (netip.Addr, bool, error) {
	last := name[strings.LastIndexByte(name, '.')+1:]
	if !numericLabel(last) {
		return netip.Addr{}, false, nil
	}
	if a, err := netip.ParseAddr(name); err == nil && a.Is4() && a.String() == name {
		return a, true, nil
	}
	if a, ok := parseLooseIPv4(name); ok {
		return netip.Addr{}, false, &NonCanonicalIPError{Host: orig, Addr: a}
	}
	return netip.Addr{}, false, fmt.Errorf("%w: %q: ends in a number but is not an IPv4 address", ErrInvalidHost, orig)
}

func numericLabel(l string) bool {
	if l == "" {
		return false
	}
	if strings.HasPrefix(l, "0x") {
		for i := 2; i < len(l); i++ {
			if !isHex(l[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// parseLooseIPv4 parses s the way inet_aton (and the WHATWG URL parser) do:
// one to four parts, each decimal, octal (leading 0) or hex (leading 0x); the
// last part fills the remaining bytes.
func parseLooseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(strings.ToLower(s), ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var vals [4]uint64
	for i, p := range parts {
		v, ok := parseLoosePart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	n := len(parts)
	for i := 0; i < n-1; i++ {
		if vals[i] > 255 {
			return netip.Addr{}, false
		}
	}
	lastBytes := 5 - n
	if vals[n-1] >= 1<<(8*lastBytes) {
		return netip.Addr{}, false
	}
	var out uint32
	for i := 0; i < n-1; i++ {
		out |= uint32(vals[i]) << (8 * (3 - i))
	}
	out |= uint32(vals[n-1])
	return netip.AddrFrom4([4]byte{byte(out >> 24), byte(out >> 16), byte(out >> 8), byte(out)}), true
}

func parseLoosePart(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case strings.HasPrefix(p, "0x"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	v, err := strconv.ParseUint(p, base, 64)
	if err != nil || v > 0xffffffff {
		return 0, false
	}
	return v, true
}

// parsePort parses a decimal TCP port in 1..65535.
func parsePort(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("%w: empty port", ErrInvalidHost)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%w: port %q is not a number", ErrInvalidHost, s)
		}
	}
	v, err := strconv.ParseUint(s, 10, 16)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("%w: port %q out of range 1-65535", ErrInvalidHost, s)
	}
	return int(v), nil
}

// parseHostPort parses "host:port" (IPv6 in brackets) into a target. When
// the port is missing and defaultPort is not zero, defaultPort is used.
func parseHostPort(s string, defaultPort int) (target, error) {
	host, portStr, err := net.SplitHostPort(s)
	if err != nil {
		if defaultPort == 0 {
			return target{}, fmt.Errorf("%w: %q: %v", ErrInvalidHost, s, err)
		}
		// No port: s is a bare host (a bracketed IPv6 literal included).
		host, portStr = s, strconv.Itoa(defaultPort)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	t, err := parseHost(host)
	if err != nil {
		return target{}, err
	}
	if t.port, err = parsePort(portStr); err != nil {
		return target{}, err
	}
	return t, nil
}
