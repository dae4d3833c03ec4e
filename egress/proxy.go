package egress

import (
	"bufio"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Resolver looks names up. *net.Resolver satisfies it. The proxy asks for
// rooted names ("example.com."), which a resolver must not extend with a
// search list.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialFunc opens a TCP connection to exactly addr.
type DialFunc func(ctx context.Context, network string, addr netip.AddrPort) (net.Conn, error)

// Config configures a Proxy. The zero value is a proxy that refuses
// everything.
type Config struct {
	Policy   Policy
	Resolver Resolver // default net.DefaultResolver
	// Dial connects to a checked address; default a net.Dialer. The proxy
	// never passes a name, only the address the guard approved.
	Dial   DialFunc
	Guard  *Guard // default NewGuard()
	Sink   Sink   // optional; receives every Decision
	Logger *slog.Logger

	// MaxTunnels bounds open upstream connections (default 1024); a request
	// beyond it is refused with rule "limit:tunnels". At most 2×MaxTunnels
	// client connections are served at once; more are closed on accept.
	MaxTunnels int
	// HandshakeTimeout bounds reading a request and resolving and dialling
	// its target (default 10s).
	HandshakeTimeout time.Duration
	// IdleTimeout closes a tunnel or keep-alive connection after this long
	// without a byte in either direction (default 5m).
	IdleTimeout time.Duration

	// MaxHeldBodyBytes bounds the bytes of request bodies the proxy holds
	// at once, over all its connections, to check them whole for
	// credential placeholders before any byte leaves (default
	// DefaultMaxHeldBodyBytes; only with Credentials). A request that would
	// need more waits up to HandshakeTimeout for room and is then refused
	// with 503 and rule "limit:held-bodies".
	MaxHeldBodyBytes int64

	// MaxInspectedBytes bounds the bytes of tunnels' first flights (TLS
	// ClientHellos, and the early data before a second ClientHello) the
	// proxy holds at once, over all its tunnels, while it inspects them
	// (default DefaultMaxInspectedBytes, at least twice the largest
	// ClientHello accepted, 64 KiB). A tunnel whose first flight would
	// pass it is refused with rule "limit:inspected-bytes".
	MaxInspectedBytes int64

	// Credentials are injected by the proxy into HTTPS requests toward the
	// hosts each is bound to, in place of a placeholder the sandbox holds
	// (see Credential). With at least one, the proxy has a CA of its own
	// (CACertPEM) and intercepts TLS tunnels to the bound hosts.
	Credentials []Credential
	// UpstreamRoots verifies the certificates of intercepted upstreams.
	// Default: the roots agentbox itself trusts (SystemRootsPEM).
	UpstreamRoots *x509.CertPool
	// CAValidity is how long the proxy's CA and the certificates it issues
	// stay valid (default DefaultCAValidity). The CA lives as long as the
	// Proxy; a Proxy that serves longer needs a longer validity.
	CAValidity time.Duration
	// Injections, when set, is shared by the Proxies of one Manager, or
	// one agent run: once one of them injected a credential's value, all
	// of them mask it in every response from a host it is bound to (nil:
	// this Proxy alone remembers).
	Injections *Injections
}

// Defaults used when a Config field is zero.
const (
	DefaultMaxTunnels       = 1024
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultIdleTimeout      = 5 * time.Minute
)

// maxDialAttempts bounds how many allowed addresses of one name are tried.
const maxDialAttempts = 3

// Proxy is a filtering HTTP and SOCKS5 proxy. Create it with New and run it
// with Serve; one Proxy may serve several listeners.
type Proxy struct {
	rules    *ruleset
	guard    *Guard
	resolver Resolver
	dial     DialFunc
	sink     Sink
	log      *slog.Logger

	maxTunnels int
	handshake  time.Duration
	idle       time.Duration
	stats      counters
	creds      *credSet    // nil without Credentials
	bodies     *byteBudget // request bodies held for checking
	flights    *byteBudget // tunnels' first flights held for inspection
}

// New validates cfg (every pattern must parse) and returns a Proxy.
func New(cfg Config) (*Proxy, error) {
	rs, err := compilePolicy(cfg.Policy)
	if err != nil {
		return nil, fmt.Errorf("egress: %w", err)
	}
	p := &Proxy{
		rules:      rs,
		guard:      cfg.Guard,
		resolver:   cfg.Resolver,
		dial:       cfg.Dial,
		sink:       cfg.Sink,
		log:        cfg.Logger,
		maxTunnels: cfg.MaxTunnels,
		handshake:  cfg.HandshakeTimeout,
		idle:       cfg.IdleTimeout,
	}
	if p.guard == nil {
		p.guard = NewGuard()
	}
	if p.resolver == nil {
		p.resolver = net.DefaultResolver
	}
	if p.dial == nil {
		p.dial = defaultDial
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.maxTunnels <= 0 {
		p.maxTunnels = DefaultMaxTunnels
	}
	if p.handshake <= 0 {
		p.handshake = DefaultHandshakeTimeout
	}
	if p.idle <= 0 {
		p.idle = DefaultIdleTimeout
	}
	// A body the proxy must hold whole, or a first flight it must read
	// whole, would never find room below these.
	if p.bodies, err = configBudget("MaxHeldBodyBytes", cfg.MaxHeldBodyBytes, DefaultMaxHeldBodyBytes, maxHeldBody,
		"the largest body held whole for checking"); err != nil {
		return nil, err
	}
	if p.flights, err = configBudget("MaxInspectedBytes", cfg.MaxInspectedBytes, DefaultMaxInspectedBytes, minInspectedBytes,
		"twice the largest ClientHello accepted"); err != nil {
		return nil, err
	}
	if len(cfg.Credentials) > 0 {
		if p.creds, err = newCredSet(cfg.Credentials, cfg.UpstreamRoots, cfg.CAValidity, cfg.Injections); err != nil {
			return nil, fmt.Errorf("egress: %w", err)
		}
	}
	return p, nil
}

func defaultDial(ctx context.Context, network string, addr netip.AddrPort) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr.String())
}

// Stats returns a snapshot of the counters.
func (p *Proxy) Stats() Stats { return p.stats.snapshot() }

// Serve accepts connections on l and serves HTTP proxy requests and SOCKS5
// on each, telling them apart by the first byte (0x05 is SOCKS5). It returns
// nil when ctx is done or l is closed, after closing l and every connection
// it served, tunnels included. Another accept error is returned wrapped.
func (p *Proxy) Serve(ctx context.Context, l net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { _ = l.Close() })
	defer stop()

	var wg sync.WaitGroup
	var served connSet       // client and upstream connections, closed on return
	var clients atomic.Int64 // client connections being served
	defer func() {
		cancel()
		_ = l.Close()
		served.closeAll()
		wg.Wait()
	}()
	var backoff time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || isTemporaryAccept(err) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				p.log.Warn("egress: accept failed, retrying", "err", err, "backoff", backoff)
				select {
				case <-time.After(backoff):
					continue
				case <-ctx.Done():
					return nil
				}
			}
			return fmt.Errorf("egress: accept: %w", err)
		}
		backoff = 0
		if clients.Load() >= int64(2*p.maxTunnels) {
			p.log.Warn("egress: too many client connections, closing a new one", "limit", 2*p.maxTunnels)
			_ = c.Close()
			continue
		}
		served.add(c)
		clients.Add(1)
		wg.Go(func() {
			defer clients.Add(-1)
			defer served.remove(c)
			defer c.Close()
			p.serveConn(ctx, c, &served)
		})
	}
}

// serveConn sniffs the protocol and hands the connection to its handler.
func (p *Proxy) serveConn(ctx context.Context, c net.Conn, cs *connSet) {
	cr := &clientReader{c: c, deadline: time.Now().Add(p.handshake)}
	br := bufio.NewReaderSize(cr, 4096)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	h := &connHandler{p: p, ctx: ctx, client: c, cr: cr, br: br, cs: cs}
	switch first[0] {
	case socks5Version:
		h.serveSOCKS5()
	case socks4Version:
		h.refuseSOCKS4()
	default:
		h.serveHTTP()
	}
}

// connHandler carries one client connection through its handler.
type connHandler struct {
	p      *Proxy
	ctx    context.Context
	client net.Conn
	cr     *clientReader
	br     *bufio.Reader
	cs     *connSet
}

// pending drains and returns the bytes the client sent beyond the request,
// and drops the request buffer: a tunnel reads the connection directly.
func (h *connHandler) pending() []byte {
	br := h.br
	h.br = nil
	n := br.Buffered()
	if n == 0 {
		return nil
	}
	b := make([]byte, n)
	_, _ = io.ReadFull(br, b)
	return b
}

// record counts, logs and sinks d.
func (p *Proxy) record(d Decision) {
	if d.Time.IsZero() {
		d.Time = time.Now()
	}
	if d.Allowed {
		p.stats.allowed.Add(1)
	} else {
		p.stats.denied.Add(1)
	}
	if p.sink != nil {
		p.sink.Record(d)
	}
	level := slog.LevelDebug
	if !d.Allowed {
		level = slog.LevelInfo
	}
	if p.log.Enabled(context.Background(), level) {
		p.log.Log(context.Background(), level, "egress decision",
			"proto", d.Proto, "target", d.Target(), "addr", d.Addr, "allowed", d.Allowed,
			"rule", d.Rule, "reason", d.Reason, "credential", d.Credential)
	}
}

// connSet tracks connections to close on shutdown.
type connSet struct {
	mu     sync.Mutex
	m      map[io.Closer]struct{}
	closed bool
}

func (s *connSet) add(c io.Closer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = c.Close()
		return
	}
	if s.m == nil {
		s.m = make(map[io.Closer]struct{})
	}
	s.m[c] = struct{}{}
}

func (s *connSet) remove(c io.Closer) {
	s.mu.Lock()
	delete(s.m, c)
	s.mu.Unlock()
}

func (s *connSet) closeAll() {
	s.mu.Lock()
	s.closed = true
	m := s.m
	s.m = nil
	s.mu.Unlock()
	for c := range m {
		_ = c.Close()
	}
}
