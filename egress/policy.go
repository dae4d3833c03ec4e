package egress

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Policy says which hosts the proxy may reach. Patterns use the syntax of
// ParsePattern.
//
// Evaluation order: the address guard, then Denied, then Allowed, then
// OnRequest, then deny. Two refinements keep that order safe and useful:
//
//   - A name is resolved only after Denied/Allowed/OnRequest allowed it, so a
//     refused name never causes a DNS query (no exfiltration through the
//     resolver). The guard then judges every resolved address and vetoes
//     whatever the lists said, and so do the Denied IP patterns: a name that
//     resolves to a denied address does not reach it. IP literals are
//     judged by the guard first. The name is resolved as given, rooted
//     (never through the resolver's search list), so "intranet" must be
//     allowed by its full name.
//   - A Denied entry whose host is "*" means "everything not allowed" (the
//     manifest idiom deny: ["*"]): it is applied after Allowed and stops
//     OnRequest from being asked. Every other Denied entry wins over Allowed.
//
// An IP-literal target is allowed only by an Allowed entry that names that
// address; "*" and name patterns never allow an IP literal, and OnRequest is
// not asked about one.
type Policy struct {
	Allowed, Denied []string
	// OnRequest, when set, is asked about a name that no list decided. An
	// error denies (rule "callback-error"). It runs on the connection's
	// goroutine and should bound its own waits.
	OnRequest func(ctx context.Context, host string, port int) (bool, error)
}

// Rule names a decision carries besides "allow:<pattern>", "deny:<pattern>"
// and "guard:<class>".
const (
	RuleDefaultDeny   = "default-deny"
	RuleCallbackAllow = "callback:allow"
	RuleCallbackDeny  = "callback:deny"
	RuleCallbackError = "callback-error"
	RuleSNIMismatch   = "sni-mismatch"
	RuleBadTLS        = "tls-malformed"
	// RuleECH refuses a tunnel to a host name whose ClientHello hides its
	// server name (Encrypted Client Hello, or draft ESNI). Browsers send a
	// decoy ECH extension by default; turn ECH off in them behind the proxy.
	RuleECH = "tls-ech"
	// RulePlainHTTPTunnel refuses plain HTTP inside a CONNECT tunnel: its
	// requests' Host headers would reach the upstream unchecked.
	RulePlainHTTPTunnel = "plain-http-tunnel"
	// RuleProxyProtocol refuses a tunnel whose first bytes are a PROXY
	// protocol header: a front end would read the TLS hello after it
	// unchecked, and the client address it names is forged.
	RuleProxyProtocol = "proxy-protocol"
	RuleHostMismatch  = "host-mismatch"
	RuleInvalidTarget = "invalid-target"
	RuleBadRequest    = "bad-request"
	RuleUnsupported   = "unsupported"
	RuleLimitTunnels  = "limit:tunnels"
	RuleResolveFailed = "resolve-failed"
)

// verdict is the outcome of the name policy for one target.
type verdict struct {
	allowed bool
	rule    string
	reason  string
}

// ruleset is a compiled Policy. Exact and wildcard patterns are indexed by
// name so a decision costs a few map look-ups however long the lists are.
type ruleset struct {
	deny, allow patternIndex
	denyRest    []Pattern // Denied entries with host "*": after Allowed
	onRequest   func(ctx context.Context, host string, port int) (bool, error)
}

// patternIndex holds patterns by kind.
type patternIndex struct {
	exact  map[string][]Pattern // by name
	suffix map[string][]Pattern // by the suffix after "*."
	ip     []Pattern
	any    []Pattern
}

func compilePolicy(p Policy) (*ruleset, error) {
	rs := &ruleset{onRequest: p.OnRequest}
	for _, s := range p.Denied {
		pat, err := ParsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("denied: %w", err)
		}
		pat.denied = true
		if pat.matchesEveryHost() {
			rs.denyRest = append(rs.denyRest, pat)
			continue
		}
		rs.deny.add(pat)
	}
	for _, s := range p.Allowed {
		pat, err := ParsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("allowed: %w", err)
		}
		rs.allow.add(pat)
	}
	return rs, nil
}

func (ix *patternIndex) add(p Pattern) {
	switch p.kind {
	case kindExact:
		if ix.exact == nil {
			ix.exact = make(map[string][]Pattern)
		}
		ix.exact[p.host] = append(ix.exact[p.host], p)
	case kindSuffix:
		if ix.suffix == nil {
			ix.suffix = make(map[string][]Pattern)
		}
		ix.suffix[p.host] = append(ix.suffix[p.host], p)
	case kindIP:
		ix.ip = append(ix.ip, p)
	case kindAnyHost:
		ix.any = append(ix.any, p)
	}
}

// lookup returns the most specific pattern matching t: exact, then the
// longest wildcard suffix, then "*". ipOnly restricts IP targets to
// patterns naming the address.
func (ix *patternIndex) lookup(t target, ipOnly bool) (Pattern, bool) {
	if t.isIP() {
		if p, ok := firstMatch(ix.ip, t); ok || ipOnly {
			return p, ok
		}
		return firstMatch(ix.any, t)
	}
	if p, ok := firstMatch(ix.exact[t.name], t); ok {
		return p, true
	}
	for rest := t.name; ; {
		i := strings.IndexByte(rest, '.')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		if p, ok := firstMatch(ix.suffix[rest], t); ok {
			return p, true
		}
	}
	return firstMatch(ix.any, t)
}

// namesHost reports whether a pattern of the index names t's host, on
// any port.
func (ix *patternIndex) namesHost(t target) bool {
	lists := [][]Pattern{ix.ip, ix.any, ix.exact[t.name]}
	for rest := t.name; !t.isIP(); {
		i := strings.IndexByte(rest, '.')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		lists = append(lists, ix.suffix[rest])
	}
	for _, ps := range lists {
		if slices.ContainsFunc(ps, func(p Pattern) bool { return p.matchHost(t) }) {
			return true
		}
	}
	return false
}

func firstMatch(ps []Pattern, t target) (Pattern, bool) {
	for _, p := range ps {
		if p.match(t) {
			return p, true
		}
	}
	return Pattern{}, false
}

// deniedAddr returns the Denied IP pattern that an address a name resolved
// to matches on port, if any. An IPv6 address that carries an IPv4 one
// (mapped, translated, compatible, NAT64, 6to4, Teredo: see embeddings) is
// judged as that IPv4 address too, as the guard judges it: on a network
// with DNS64 a denied host's own name resolves to its NAT64 form as well
// (found by red-team round 49).
func (rs *ruleset) deniedAddr(a netip.Addr, port int) (Pattern, bool) {
	if len(rs.deny.ip) == 0 {
		return Pattern{}, false
	}
	for _, c := range append([]netip.Addr{a.Unmap()}, embeddedIPv4(a)...) {
		if p, ok := firstMatch(rs.deny.ip, target{ip: c, port: port}); ok {
			return p, true
		}
	}
	return Pattern{}, false
}

// decide applies Denied, Allowed, the "*" denials and OnRequest to t. The
// address guard is applied by the caller (before for IP literals, after
// resolution for names).
func (rs *ruleset) decide(ctx context.Context, t target) verdict {
	if p, ok := rs.deny.lookup(t, false); ok {
		return verdict{rule: "deny:" + p.String(), reason: "matches a denied pattern"}
	}
	if t.isIP() {
		if p, ok := rs.deniedAddr(t.ip, t.port); ok { // [::ffff:192.0.2.66], [64:ff9b::c000:242]
			return verdict{rule: "deny:" + p.String(), reason: "matches a denied pattern"}
		}
	}
	if p, ok := rs.allow.lookup(t, true); ok {
		return verdict{allowed: true, rule: "allow:" + p.String(), reason: "matches an allowed pattern"}
	}
	if p, ok := firstMatch(rs.denyRest, t); ok {
		return verdict{rule: "deny:" + p.String(), reason: "not in the allow list"}
	}
	if t.isIP() {
		return verdict{rule: RuleDefaultDeny, reason: "IP literals must be listed explicitly in the allow list"}
	}
	if rs.onRequest != nil {
		ok, err := rs.onRequest(ctx, t.name, t.port)
		switch {
		case err != nil:
			return verdict{rule: RuleCallbackError, reason: "OnRequest failed: " + err.Error()}
		case ok:
			return verdict{allowed: true, rule: RuleCallbackAllow, reason: "allowed by OnRequest"}
		default:
			return verdict{rule: RuleCallbackDeny, reason: "refused by OnRequest"}
		}
	}
	return verdict{rule: RuleDefaultDeny, reason: "not in the allow list"}
}
