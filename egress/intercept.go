package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync/atomic"
	"time"
)

// Who spoke first in an intercepted tunnel.
const (
	undecided int32 = iota
	upstreamFirst
	clientFirst
)

// interceptTunnel runs a tunnel to a host a credential is bound to (see
// runTunnel): a TLS ClientHello is intercepted.
func (p *Proxy) interceptTunnel(client net.Conn, pending []byte, up *upstream, tgt target, d Decision) {
	p.runTunnel(client, pending, up, tgt, d, true)
}

// runTunnel runs a tunnel for the allowed decision d. The client's first
// flight is inspected before any of it goes upstream: a fronted or
// malformed TLS ClientHello is refused; a TLS one is intercepted if
// intercept is set; plain HTTP is relayed a request at a time, each
// checked (relayPlain); anything else, or a tunnel whose upstream speaks
// first (a protocol that is not TLS), is spliced and not looked into.
func (p *Proxy) runTunnel(client net.Conn, pending []byte, up *upstream, tgt target, d Decision, intercept bool) {
	t := newTunnel(p, client, up)
	t.d = d
	if p.creds != nil {
		if intercept {
			t.setEchoes(p.creds.echoes(tgt, d.Addr))
		}
		defer p.creds.tunnels.add(d.Addr, t)()
	}
	_ = client.SetDeadline(time.Time{})
	_ = up.SetDeadline(time.Time{})

	// While the client's first flight is awaited, watch the upstream: if
	// it sends first, relay it from then on like a spliced tunnel.
	var state atomic.Int32
	down := make(chan struct{})
	go func() {
		defer close(down)
		if !waitDataBlocks {
			// No way to wait for data unread here: a tunnel that is not
			// intercepted relays the upstream from the start, so that
			// server-first protocols work (and plain HTTP is refused).
			if !intercept && state.CompareAndSwap(undecided, upstreamFirst) {
				t.down()
			}
			return
		}
		_, _ = waitData(rawConn(up))
		if state.CompareAndSwap(undecided, upstreamFirst) {
			t.down()
		}
	}()

	raw, hello, line, ok := t.inspectFirstFlight(pending, tgt, d)
	if !ok {
		// Nothing goes up. What the upstream sends first still comes down
		// (a server-first protocol; the pump has its idle limit), but a
		// silent one must not hold the tunnel past the idle limit: the
		// watcher waits for data with no deadline of its own. Found by
		// red-team round 49.
		idle := time.NewTimer(p.idle)
		select {
		case <-down:
		case <-idle.C:
			if state.CompareAndSwap(undecided, clientFirst) {
				_ = up.SetReadDeadline(time.Unix(1, 0)) // wake the watcher
			}
			<-down
		}
		idle.Stop()
		t.closeBoth()
		return
	}
	plainHTTP := line != nil && line.http
	if !state.CompareAndSwap(undecided, clientFirst) {
		if plainHTTP {
			// Its responses already flow unparsed: no request can be checked.
			d.Time = time.Now()
			p.record(refuse(d, RulePlainHTTPTunnel, "plain HTTP inside a tunnel whose upstream spoke first"))
			t.closeBoth()
		} else {
			t.upward(raw, line, d)
		}
		<-down
		t.closeBoth()
		return
	}
	_ = up.SetReadDeadline(time.Unix(1, 0)) // wake the watcher
	<-down
	_ = up.SetReadDeadline(time.Time{})

	switch {
	case plainHTTP:
		p.relayPlain(t, raw, tgt, d)
	case hello != nil && intercept:
		p.intercept(t, raw, tgt, d)
	case hello != nil && !hello.sslv2:
		// (An SSLv2-format hello is read only in part: the server cannot
		// answer before the rest goes up, and it has no HelloRetryRequest.)
		p.spliceTLS(t, raw, tgt, d)
	default:
		p.spliceRest(t, raw, line, d)
	}
}

// relayPlain carries the plain HTTP requests of a tunnel one at a time,
// each checked like a request sent to the proxy itself: its Host and
// target must name the tunnel's target, or a front end shared with it (a
// CDN) would route the request to any host. raw is the client's first
// flight, not yet forwarded. Credentials are never injected in the clear,
// so a placeholder in a request is a leak.
func (p *Proxy) relayPlain(t *tunnel, raw []byte, tgt target, d Decision) {
	defer t.closeBoth()
	client := &idleConn{Conn: &prefixConn{Conn: t.client, pre: raw}, idle: p.idle}
	up := &idleConn{Conn: t.up.Conn, idle: p.idle}
	r := &relay{p: p, tgt: tgt, d: d, scheme: "http", client: client, conn: t.client, cbr: bufio.NewReaderSize(client, 4096),
		up: up, ubr: newUpstreamReader(up)}
	if p.creds != nil {
		// Nothing is injected in the clear: every placeholder is a leak
		// here; but the values that went out over HTTPS to this host are
		// masked in its plain answers (red-team round 55).
		r.others = p.creds.all
		r.echoes = p.creds.echoes(tgt, d.Addr)
		t.setEchoes(r.echoes)
	}
	r.serve()
}

// spliceRest runs a tunnel whose first flight was read but not forwarded.
func (p *Proxy) spliceRest(t *tunnel, raw []byte, line *requestLine, d Decision) {
	down := make(chan struct{})
	go func() {
		defer close(down)
		t.down()
	}()
	t.upward(raw, line, d)
	<-down
	t.closeBoth()
}

// intercept terminates the client's TLS with a certificate for tgt from
// the proxy's CA, opens TLS to the checked upstream (verified against the
// upstream roots, tgt as the server name) and relays HTTP/1.1 requests.
// raw is the client's first flight (its ClientHello), not yet answered.
func (p *Proxy) intercept(t *tunnel, raw []byte, tgt target, d Decision) {
	defer t.closeBoth()
	leaf, err := p.creds.ca.leafFor(tgt)
	if err != nil {
		p.log.Error("egress: cannot intercept", "target", tgt.String(), "err", err)
		return
	}
	cc := &clientConn{idleConn: idleConn{Conn: &prefixConn{Conn: t.client, pre: raw}, idle: p.idle}, leaf: leaf}
	client := tls.Server(cc, p.creds.server)
	if err := p.tlsHandshake(client); err != nil {
		p.log.Info("egress: TLS handshake with the client failed (does it trust the proxy's CA?)",
			"target", tgt.String(), "err", err)
		return
	}
	defer client.Close()
	cbr := bufio.NewReaderSize(client, 4096)

	upstream := tls.Client(&idleConn{Conn: t.up.Conn, idle: p.idle}, &tls.Config{
		ServerName:         tgt.host(),
		RootCAs:            p.creds.roots,
		NextProtos:         []string{"http/1.1"},
		MinVersion:         tls.VersionTLS12,
		ClientSessionCache: p.creds.sessions,
	})
	r := &relay{p: p, tgt: tgt, d: d, scheme: "https", client: client, conn: t.client, cbr: cbr}
	if err := p.tlsHandshake(upstream); err != nil {
		cc.idle = p.handshake // wait that long for the request to refuse
		r.refuseUpstream(err)
		return
	}
	defer upstream.Close()
	r.up, r.ubr = upstream, newUpstreamReader(upstream)
	r.bound, r.others = p.creds.split(tgt)
	r.echoes = p.creds.echoes(tgt, d.Addr)
	t.setEchoes(r.echoes)
	r.serve()
}

// tlsHandshake runs a TLS handshake bounded by the handshake timeout.
func (p *Proxy) tlsHandshake(c *tls.Conn) error {
	ctx, cancel := context.WithTimeout(context.Background(), p.handshake)
	defer cancel()
	return c.HandshakeContext(ctx)
}

// clientConn is the client side of an intercepted tunnel: the shared
// server config finds the tunnel's certificate on it (one config for all
// tunnels lets clients resume TLS sessions).
type clientConn struct {
	idleConn
	leaf *tls.Certificate
}

// leafOf is the shared server config's GetCertificate.
func leafOf(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c, ok := h.Conn.(*clientConn); ok {
		return c.leaf, nil
	}
	return nil, errors.New("egress: not an intercepted connection")
}

// prefixConn reads pre before reading the connection.
type prefixConn struct {
	net.Conn
	pre []byte
}

func (c *prefixConn) Read(b []byte) (int, error) {
	if len(c.pre) > 0 {
		n := copy(b, c.pre)
		c.pre = c.pre[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}
