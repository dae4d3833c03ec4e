package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Errors connect returns; handlers map them to protocol replies.
var (
	// ErrRefused is wrapped when the policy, the guard or a check refused.
	ErrRefused = errors.New("egress: refused")
	// ErrLimit is wrapped when MaxTunnels upstream connections are open.
	ErrLimit = errors.New("egress: too many open tunnels")
)

// UpstreamError reports an allowed target that could not be reached.
type UpstreamError struct {
	Target string
	Err    error
}

// Error names the target and the failure.
func (e *UpstreamError) Error() string {
	return fmt.Sprintf("egress: upstream %s: %v", e.Target, e.Err)
}

// Unwrap returns the underlying error.
func (e *UpstreamError) Unwrap() error { return e.Err }

// upstream is an allowed, connected upstream connection that holds a tunnel
// slot until closed.
type upstream struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close closes the connection and releases its slot.
func (u *upstream) Close() error {
	err := u.Conn.Close()
	u.once.Do(u.release)
	return err
}

// refuse builds a refusing decision.
func refuse(d Decision, rule, reason string) Decision {
	d.Allowed, d.Rule, d.Reason = false, rule, reason
	return d
}

// connect decides t and, when allowed, resolves it, checks every address
// with the guard and dials an approved one. The decision is recorded before
// connect returns. On refusal the error wraps ErrRefused or ErrLimit; on a
// failure to reach an allowed target it is an *UpstreamError.
func (h *connHandler) connect(proto string, t target) (*upstream, Decision, error) {
	p := h.p
	d := Decision{Time: time.Now(), Proto: proto, Host: t.host(), Port: t.port}
	if t.isIP() {
		d.Addr = t.ip
		if rule, detail, blocked := p.guard.check(t.ip); blocked {
			d = refuse(d, rule, guardReason(t.ip, detail))
			p.record(d)
			return nil, d, ErrRefused
		}
	}
	v := p.rules.decide(h.ctx, t)
	if !v.allowed {
		d = refuse(d, v.rule, v.reason)
		p.record(d)
		return nil, d, ErrRefused
	}
	d.Allowed, d.Rule, d.Reason = true, v.rule, v.reason

	if !p.acquire() {
		d = refuse(d, RuleLimitTunnels, fmt.Sprintf("%d tunnels open", p.maxTunnels))
		p.record(d)
		return nil, d, ErrLimit
	}
	ctx, cancel := context.WithTimeout(h.ctx, p.handshake)
	defer cancel()

	addrs := []netip.Addr{t.ip}
	var skipped []string
	if !t.isIP() {
		// The name as the policy judged it, rooted: a resolver's search
		// list would otherwise turn "secret" into secret.corp.example,
		// a name the policy never saw.
		resolved, err := p.resolver.LookupNetIP(ctx, "ip", t.name+".")
		if err != nil || len(resolved) == 0 {
			p.releaseSlot()
			if err == nil {
				err = errors.New("no addresses")
			}
			d.Reason = "allowed, but resolving failed: " + err.Error()
			p.record(d)
			return nil, d, &UpstreamError{Target: t.String(), Err: err}
		}
		var rule string
		addrs, skipped, rule = p.screen(resolved, t.port)
		if len(addrs) == 0 {
			p.releaseSlot()
			first := resolved[0]
			_, detail, _ := p.guard.check(first)
			d.Addr = first
			d = refuse(d, rule, fmt.Sprintf("%s resolves only to refused addresses: %s",
				t.name, strings.Join(skipped, ", ")))
			if detail != "" {
				d.Reason += " (" + detail + ")"
			}
			p.record(d)
			return nil, d, ErrRefused
		}
	}
	if len(skipped) > 0 {
		d.Reason += "; skipped refused addresses " + strings.Join(skipped, ", ")
	}

	var lastErr error
	for i, a := range addrs {
		if i == maxDialAttempts {
			break
		}
		d.Addr = a
		c, err := p.dial(ctx, "tcp", netip.AddrPortFrom(a, uint16(t.port)))
		if err == nil {
			u := &upstream{Conn: c, release: p.releaseSlot}
			p.record(d)
			return u, d, nil
		}
		lastErr = err
	}
	p.releaseSlot()
	d.Reason = "allowed, but connecting failed: " + lastErr.Error()
	p.record(d)
	return nil, d, &UpstreamError{Target: t.String(), Err: lastErr}
}

// screen splits resolved addresses into those the guard and the Denied IP
// patterns approve (deduplicated, in resolver order) and descriptions of
// the refused ones, with the rule that refused the first. The proxy dials
// only approved addresses, so a name that mixes public and internal
// addresses can reach only the public ones, and a name that resolves to a
// denied address (192-0-2-66.nip.io, Denied "192.0.2.66") does not reach
// it: the policy decides on the resolved address as well as the name.
func (p *Proxy) screen(resolved []netip.Addr, port int) (ok []netip.Addr, refused []string, firstRule string) {
	seen := make(map[netip.Addr]bool, len(resolved))
	for _, a := range resolved {
		a = a.WithZone("")
		if seen[a] {
			continue
		}
		seen[a] = true
		rule, _, blocked := p.guard.check(a)
		if !blocked {
			if pat, denied := p.rules.deniedAddr(a, port); denied {
				rule, blocked = "deny:"+pat.String(), true
			}
		}
		if blocked {
			if firstRule == "" {
				firstRule = rule
			}
			refused = append(refused, a.String()+" ("+rule+")")
			continue
		}
		ok = append(ok, a)
	}
	return ok, refused, firstRule
}

func guardReason(a netip.Addr, detail string) string {
	r := "address " + a.String() + " is never reachable"
	if detail != "" {
		r += " (" + detail + ")"
	}
	return r
}

// acquire takes a tunnel slot if one is free.
func (p *Proxy) acquire() bool {
	if p.stats.active.Add(1) > int64(p.maxTunnels) {
		p.stats.active.Add(-1)
		return false
	}
	return true
}

func (p *Proxy) releaseSlot() { p.stats.active.Add(-1) }

// isTemporaryAccept reports accept errors worth retrying.
func isTemporaryAccept(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM) ||
		errors.Is(err, syscall.ECONNABORTED)
}

// dialReply maps a resolve or dial failure to a SOCKS5 reply code.
func dialReply(err error) byte {
	var dnsErr *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return socksReplyConnectionRefused
	case errors.Is(err, syscall.ENETUNREACH):
		return socksReplyNetworkUnreachable
	case errors.As(err, &dnsErr), errors.Is(err, syscall.EHOSTUNREACH):
		return socksReplyHostUnreachable
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return socksReplyTTLExpired
	}
	return socksReplyHostUnreachable
}
