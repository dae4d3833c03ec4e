package egress

import (
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"
)

// Protocols a Decision names.
const (
	ProtoHTTP    = "http"    // a plain-HTTP request forwarded by the proxy
	ProtoConnect = "connect" // an HTTP CONNECT tunnel
	ProtoSOCKS5  = "socks5"  // a SOCKS5 CONNECT (or a refused BIND / UDP ASSOCIATE)
	// ProtoHTTPS is a request inside an intercepted TLS tunnel (a tunnel to
	// a host a Credential is bound to).
	ProtoHTTPS = "https"
)

// Decision records one verdict of the proxy: a request or tunnel allowed or
// refused, and the rule that decided it.
//
// A tunnel normally yields one Decision. A CONNECT or SOCKS5 tunnel that was
// allowed and then refused because its TLS ClientHello named another host
// yields a second, refusing Decision with Rule "sni-mismatch". An
// intercepted tunnel (see Credential) also yields a Decision, with Proto
// ProtoHTTPS, for every credential injected and every request refused
// inside it.
type Decision struct {
	Time  time.Time
	Proto string // ProtoHTTP, ProtoConnect or ProtoSOCKS5
	Host  string // normalised host name or IP literal; empty when the request could not be parsed
	Port  int
	// Addr is the resolved address the connection went (or would go) to:
	// the address dialled when allowed, the refused address when the guard
	// refused; zero if no address was involved.
	Addr    netip.Addr
	Allowed bool
	// Rule names what decided: "allow:<pattern>", "deny:<pattern>",
	// "guard:<class>", "default-deny", "sni-mismatch", … (see the Rule*
	// constants).
	Rule   string
	Reason string // a short human explanation
	// Credential names the credential a decision is about, never its
	// value: with Rule RuleCredentialUse (Allowed) the value was injected
	// into a request to Host (audit "credential_use"); with Rule
	// RuleCredentialLeak (refused) a request to Host carried the
	// credential's placeholder and was blocked (audit
	// "credential_leak_blocked"); with RuleCredentialError the value could
	// not be injected. Empty for every other decision.
	Credential string
}

// Target returns "host:port" of the decision.
func (d Decision) Target() string {
	if d.Host == "" {
		return ""
	}
	h := d.Host
	if a, err := netip.ParseAddr(h); err == nil && a.Is6() {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(d.Port)
}

// Sink receives every Decision. Record is called synchronously on the
// connection's goroutine and must be cheap (queue, do not block).
type Sink interface {
	Record(Decision)
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Decision)

// Record calls f(d).
func (f SinkFunc) Record(d Decision) { f(d) }

// Stats are the proxy's counters since New.
type Stats struct {
	Allowed       uint64 // decisions that allowed
	Denied        uint64 // decisions that refused
	ActiveTunnels int64  // open upstream connections (tunnels and forwarded HTTP)
	BytesUp       uint64 // client to upstream
	BytesDown     uint64 // upstream to client
}

type counters struct {
	allowed, denied    atomic.Uint64
	active             atomic.Int64
	bytesUp, bytesDown atomic.Uint64
}

func (c *counters) snapshot() Stats {
	return Stats{
		Allowed:       c.allowed.Load(),
		Denied:        c.denied.Load(),
		ActiveTunnels: c.active.Load(),
		BytesUp:       c.bytesUp.Load(),
		BytesDown:     c.bytesDown.Load(),
	}
}

// MultiSink returns a Sink that records every Decision to each non-nil
// sink in order (for example the audit log and a per-command collector of
// refusals).
func MultiSink(sinks ...Sink) Sink {
	var live []Sink
	for _, s := range sinks {
		if s != nil {
			live = append(live, s)
		}
	}
	return multiSink(live)
}

type multiSink []Sink

func (m multiSink) Record(d Decision) {
	for _, s := range m {
		s.Record(d)
	}
}
