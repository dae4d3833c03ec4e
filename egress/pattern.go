package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// ErrInvalidPattern is wrapped by every error ParsePattern returns.
var ErrInvalidPattern = errors.New("invalid host pattern")

// Port selectors stored in Pattern.port besides a concrete port.
const (
	portDefault = 0  // no ":port" given: 80 and 443
	portAny     = -1 // ":*"
)

type patternKind uint8

const (
	kindExact   patternKind = iota // a DNS name
	kindIP                         // an IP literal
	kindSuffix                     // "*.example.com": subdomains only
	kindAnyHost                    // "*": every host
)

// Pattern is a parsed host pattern. The zero value matches nothing useful;
// build patterns with ParsePattern.
//
// Forms:
//
//	example.com         exactly that name
//	*.example.com       any name below example.com, not example.com itself
//	192.0.2.7, [2001:db8::7]   exactly that address (an IP target only
//	                    matches an allow pattern that names it)
//	*                   every host
//
// Each form takes an optional ":port" (a number, or "*" for every port);
// without one, only ports 80 and 443 match, but in Policy.Denied, where it
// denies every port (a host denied outright stays denied on port 8443
// that a wider allow pattern such as "*.example.com:*" covers). Names are matched
// case-insensitively, a trailing dot is ignored and internationalised names
// are compared in their punycode form.
type Pattern struct {
	kind patternKind
	host string // name, suffix without "*.", or "" for kindAnyHost
	ip   netip.Addr
	port int
	// denied marks a pattern of Policy.Denied: without a port, it denies
	// every port of its hosts, not 80 and 443 alone.
	denied bool
}

// ParsePattern parses a host pattern (see Pattern). The error names the
// pattern and what is wrong with it, and wraps ErrInvalidPattern.
func ParsePattern(s string) (Pattern, error) {
	p, err := parsePattern(s)
	if err != nil {
		return Pattern{}, fmt.Errorf("%w %q: %w", ErrInvalidPattern, s, err)
	}
	return p, nil
}

func parsePattern(s string) (Pattern, error) {
	if strings.TrimSpace(s) != s {
		return Pattern{}, errors.New("leading or trailing white space")
	}
	if s == "" {
		return Pattern{}, errors.New("empty")
	}
	if strings.Contains(s, "://") {
		return Pattern{}, errors.New("patterns are host names, not URLs (drop the scheme)")
	}
	if strings.ContainsAny(s, "/?#@") {
		return Pattern{}, errors.New("patterns are host names: no path, query, fragment or user")
	}
	host, port, err := splitPatternPort(s)
	if err != nil {
		return Pattern{}, err
	}
	p := Pattern{port: port}
	switch {
	case host == "*":
		p.kind = kindAnyHost
	case strings.HasPrefix(host, "*."):
		rest := host[2:]
		if strings.Contains(rest, "*") {
			return Pattern{}, errors.New(`only one leading "*." wildcard label is allowed`)
		}
		t, err := parseHost(rest)
		if err != nil {
			return Pattern{}, err
		}
		if t.isIP() {
			return Pattern{}, errors.New("a wildcard cannot apply to an IP address")
		}
		p.kind, p.host = kindSuffix, t.name
	case strings.Contains(host, "*"):
		return Pattern{}, errors.New(`"*" is allowed only alone or as a whole leading label ("*.example.com")`)
	default:
		t, err := parseHost(host)
		if err != nil {
			return Pattern{}, err
		}
		if t.isIP() {
			p.kind, p.ip = kindIP, t.ip
		} else {
			p.kind, p.host = kindExact, t.name
		}
	}
	return p, nil
}

// splitPatternPort splits an optional ":port" or ":*" off s.
func splitPatternPort(s string) (string, int, error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, errors.New("unbalanced bracket")
		}
		host, rest := s[:end+1], s[end+1:]
		if rest == "" {
			return host, portDefault, nil
		}
		if !strings.HasPrefix(rest, ":") {
			return "", 0, errors.New("unexpected text after ']'")
		}
		port, err := parsePatternPort(rest[1:])
		return host, port, err
	}
	switch strings.Count(s, ":") {
	case 0:
		return s, portDefault, nil
	case 1:
		i := strings.IndexByte(s, ':')
		port, err := parsePatternPort(s[i+1:])
		return s[:i], port, err
	default:
		if _, err := netip.ParseAddr(s); err == nil {
			return s, portDefault, nil // bare IPv6
		}
		return "", 0, errors.New("IPv6 addresses with a port need brackets: [2001:db8::1]:443")
	}
}

func parsePatternPort(s string) (int, error) {
	if s == "*" {
		return portAny, nil
	}
	return parsePort(s)
}

// String returns the canonical form of the pattern: lower-case punycode, no
// trailing dot, IPv6 in brackets when a port follows.
func (p Pattern) String() string {
	var h string
	switch p.kind {
	case kindAnyHost:
		h = "*"
	case kindSuffix:
		h = "*." + p.host
	case kindIP:
		h = p.ip.String()
		if p.ip.Is6() && p.port != portDefault {
			h = "[" + h + "]"
		}
	default:
		h = p.host
	}
	switch p.port {
	case portDefault:
		return h
	case portAny:
		return h + ":*"
	default:
		return h + ":" + strconv.Itoa(p.port)
	}
}

// Match reports whether the pattern matches host and port. host is
// normalised like a request target; an invalid host matches nothing.
func (p Pattern) Match(host string, port int) bool {
	t, err := parseHost(host)
	if err != nil {
		return false
	}
	t.port = port
	return p.match(t)
}

// match is Match for a normalised target.
func (p Pattern) match(t target) bool {
	return p.matchPort(t.port) && p.matchHost(t)
}

// matchHost reports whether the pattern names t's host, whatever the port.
func (p Pattern) matchHost(t target) bool {
	switch p.kind {
	case kindAnyHost:
		return true
	case kindIP:
		return t.isIP() && p.ip == t.ip
	case kindExact:
		return !t.isIP() && t.name == p.host
	case kindSuffix:
		return !t.isIP() && len(t.name) > len(p.host)+1 &&
			strings.HasSuffix(t.name, p.host) && t.name[len(t.name)-len(p.host)-1] == '.'
	}
	return false
}

func (p Pattern) matchPort(port int) bool {
	switch p.port {
	case portAny:
		return true
	case portDefault:
		return p.denied || port == 80 || port == 443
	default:
		return port == p.port
	}
}

// matchesEveryHost reports whether the pattern is "*" (with any port).
func (p Pattern) matchesEveryHost() bool { return p.kind == kindAnyHost }
