package egress

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// spliceChunk is how many bytes one copy call may move before the tunnel
// records progress and re-arms its idle deadline where waitData cannot
// tell how many bytes are queued. io.Copy between two TCP connections uses
// splice(2), so the bytes never enter this process.
const spliceChunk = 256 << 10

// tunnel relays bytes between a client and an upstream connection until
// either side closes or both directions stay silent for the idle timeout.
type tunnel struct {
	p        *Proxy
	client   net.Conn
	up       *upstream
	idle     time.Duration
	tick     time.Duration
	lastNano atomic.Int64 // time of the last byte in either direction
	// inspected is how many bytes of the first flight its inspection read;
	// any after them the client sent ahead, with the request to the proxy.
	inspected int
	// echoes are the credentials bound to the tunnel's host, whose values
	// its raw bytes are masked for (down); d is the tunnel's decision.
	echoes []*credential // guarded by echoMu: read by endUnmasked too
	echoMu sync.Mutex
	d      Decision
}

func newTunnel(p *Proxy, client net.Conn, up *upstream) *tunnel {
	t := &tunnel{p: p, client: client, up: up, idle: p.idle, tick: max(p.idle/4, time.Millisecond)}
	t.touch()
	return t
}

func (t *tunnel) touch() { t.lastNano.Store(time.Now().UnixNano()) }

func (t *tunnel) isIdle() bool {
	return time.Since(time.Unix(0, t.lastNano.Load())) >= t.idle
}

func (t *tunnel) closeBoth() {
	_ = t.client.Close()
	_ = t.up.Close()
}

// tunnelFunc runs an established tunnel: client has been told the tunnel is
// open, pending holds bytes it sent ahead, up is connected to the address
// the decision d approved. It returns when the tunnel is over.
type tunnelFunc func(client net.Conn, pending []byte, up *upstream, tgt target, d Decision)

// tunnelFor picks how the tunnel to tgt runs: tunnels to a host a
// credential is bound to, on any of its ports, may be intercepted
// (interceptTunnel), every other tunnel is spliced. A port the credential
// is not bound to gets no value, but its responses are masked like the
// bound port's: a value that went out to one port of a host may come back
// from another (stored by the host; red-team rounds 56 and 58).
func (p *Proxy) tunnelFor(tgt target, d Decision) tunnelFunc {
	if p.creds != nil && (p.creds.intercepts(tgt) || len(p.creds.echoes(tgt, d.Addr)) > 0) {
		return p.interceptTunnel
	}
	return p.spliceTunnel
}

// spliceTunnel runs a transparent tunnel for the allowed decision d (see
// runTunnel).
func (p *Proxy) spliceTunnel(client net.Conn, pending []byte, up *upstream, tgt target, d Decision) {
	p.runTunnel(client, pending, up, tgt, d, false)
}

// firstFlightQuiet is how long a client may pause in what could still be
// an HTTP request line before its bytes go upstream, watched (watchLine).
const firstFlightQuiet = 50 * time.Millisecond

// inspectFirstFlight reads the client's first bytes (the whole ClientHello
// if they start a TLS handshake; as much of a request line as the client
// sends at once otherwise) and refuses a fronted or malformed ClientHello,
// closing both sides. raw holds every byte read and pending, to be
// forwarded; hello is nil when the client does not speak TLS, and then
// line tells whether it speaks HTTP.
func (t *tunnel) inspectFirstFlight(pending []byte, tgt target, d Decision) (raw []byte, hello *clientHello, line *requestLine, ok bool) {
	pr := bytes.NewReader(pending)
	src := &flightReader{r: io.MultiReader(pr, &idleReader{t: t, c: t.client}), b: t.p.flights}
	defer src.done()
	raw, hello, err := readFirstFlight(src)
	if err == nil && hello == nil {
		line = new(requestLine)
		line.feed(raw)
		if raw, err = t.readLine(line, raw, pr); errors.Is(err, io.EOF) {
			err = nil // the client is done: forward what it sent
		}
	}
	switch {
	case errors.Is(err, errInspectBudget):
		t.refuse(d, RuleLimitInspected, t.p.inspectedReason())
		return nil, nil, nil, false
	case errors.Is(err, errProxyHeader):
		t.refuse(d, RuleProxyProtocol, "a PROXY protocol header inside a tunnel, for "+tgt.host()+
			": a front end would read the bytes after it unchecked")
		return nil, nil, nil, false
	case err != nil && isConnError(err):
		if len(raw) == 0 && errors.Is(err, io.EOF) {
			closeWrite(t.up) // the client half-closed before sending anything
		} else {
			t.closeBoth()
		}
		return nil, nil, nil, false
	case err != nil:
		t.refuse(d, RuleBadTLS, err.Error())
		return nil, nil, nil, false
	case hello != nil:
		if rule, reason := helloRefusal(hello, tgt); rule != "" {
			t.refuse(d, rule, reason)
			return nil, nil, nil, false
		}
	case line != nil && line.ambiguous:
		t.refuseAmbiguous(d)
		return nil, nil, nil, false
	}
	t.inspected = len(raw)
	if rest := pending[len(pending)-pr.Len():]; len(rest) > 0 {
		raw = append(raw, rest...) // read ahead by the handshake, not yet inspected
	}
	return raw, hello, line, true
}

// readLine reads on while line is undecided and the client keeps sending,
// appending to raw. A client quiet for firstFlightQuiet leaves it undecided:
// a protocol whose first message only looks like the start of a request
// line must not wait for bytes it will never send.
func (t *tunnel) readLine(line *requestLine, raw []byte, pending *bytes.Reader) ([]byte, error) {
	buf := make([]byte, 2048)
	for !line.decided {
		var n int
		var err error
		if pending.Len() > 0 {
			n, _ = pending.Read(buf)
		} else {
			_ = t.client.SetReadDeadline(time.Now().Add(firstFlightQuiet))
			n, err = t.client.Read(buf)
			_ = t.client.SetReadDeadline(time.Time{})
		}
		if n > 0 {
			t.touch()
			raw = append(raw, buf[:n]...)
			line.feed(buf[:n])
		}
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return raw, nil
		case err != nil:
			return raw, err
		}
	}
	return raw, nil
}

// upward carries the client's side of a spliced tunnel: the first flight
// raw, then the rest, watched while line is undecided.
func (t *tunnel) upward(raw []byte, line *requestLine, d Decision) {
	if line != nil && !line.decided {
		t.watchLine(raw, line, d)
		return
	}
	if t.forwardFirst(raw) {
		t.pump(t.up, t.client, &t.p.stats.bytesUp)
	}
}

// watchLine forwards the client's bytes while line is undecided. If they
// turn out to be an HTTP request line sent in pieces, the tunnel is
// refused before the piece that completes it goes out: the upstream holds
// an incomplete request line, which no server acts on. Decided otherwise,
// the tunnel is spliced on.
func (t *tunnel) watchLine(raw []byte, line *requestLine, d Decision) {
	if !t.forwardFirst(raw) {
		return
	}
	src := &idleReader{t: t, c: t.client}
	buf := make([]byte, 2048)
	for !line.decided {
		n, err := src.Read(buf)
		line.feed(buf[:n])
		switch {
		case line.http:
			d.Time = time.Now()
			t.p.record(refuse(d, RulePlainHTTPTunnel, "an HTTP request line sent in pieces inside a tunnel, which the proxy cannot check"))
			t.closeBoth()
			return
		case line.ambiguous:
			t.refuseAmbiguous(d)
			return
		}
		if n > 0 {
			if _, werr := t.up.Write(buf[:n]); werr != nil {
				t.closeBoth()
				return
			}
			t.p.stats.bytesUp.Add(uint64(n))
		}
		switch {
		case errors.Is(err, io.EOF):
			closeWrite(t.up)
			return
		case err != nil:
			t.closeBoth()
			return
		}
	}
	t.pump(t.up, t.client, &t.p.stats.bytesUp)
}

// forwardFirst sends the inspected first flight upstream. It reports
// whether to keep going.
func (t *tunnel) forwardFirst(raw []byte) bool {
	if _, err := t.up.Write(raw); err != nil {
		t.closeBoth()
		return false
	}
	t.p.stats.bytesUp.Add(uint64(len(raw)))
	return true
}

// refuse records a refusing decision for a tunnel that was allowed, sends
// the client a TLS access_denied alert and closes both sides.
func (t *tunnel) refuse(d Decision, rule, reason string) {
	d.Time = time.Now()
	t.p.record(refuse(d, rule, reason))
	_ = t.client.SetWriteDeadline(time.Now().Add(t.p.handshake))
	_, _ = t.client.Write(tlsAlert)
	t.closeBoth()
}

// refuseAmbiguous records the refusal of a tunnel whose client sent what
// only a lenient HTTP server reads as a request (see requestLine), whose
// Host the proxy cannot check, and closes both sides.
func (t *tunnel) refuseAmbiguous(d Decision) {
	d.Time = time.Now()
	t.p.record(refuse(d, RulePlainHTTPTunnel, "bytes a lenient HTTP server would read as a request "+
		"(after leading whitespace or control bytes, with odd separators, or HTTP/0.9) inside a tunnel, which the proxy cannot check"))
	t.closeBoth()
}

// helloRefusal checks a ClientHello against the tunnel's target tgt: it
// returns the rule and reason to refuse it by, or "" to let it through.
func helloRefusal(hello *clientHello, tgt target) (rule, reason string) {
	switch {
	case hello.hasSNI && !sniMatches(hello.serverName, tgt):
		return RuleSNIMismatch, "TLS ClientHello names " + quoteSNI(hello.serverName) + ", not " + tgt.host()
	case hello.encrypted && !tgt.isIP():
		// A front end would route by the inner ClientHello's name, which
		// the proxy cannot read: fronting that no SNI check sees.
		return RuleECH, "TLS ClientHello encrypts its real server name (Encrypted Client Hello), for " + tgt.host() + "; turn ECH off in the client"
	case !hello.hasSNI && !tgt.isIP():
		// A front end would pick the host from the encrypted request.
		return RuleSNIMismatch, noSNIReason(hello, tgt)
	}
	return "", ""
}

// noSNIReason says why a ClientHello without SNI is refused for tgt.
func noSNIReason(hello *clientHello, tgt target) string {
	if hello.sslv2 {
		return "TLS ClientHello in the SSLv2-compatible format, which cannot name a server, for " + tgt.host() +
			"; let the client send a TLS ClientHello with SNI"
	}
	return "TLS ClientHello names no server name, for " + tgt.host()
}

func quoteSNI(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return "\"" + s + "\""
}

// pump copies src to dst: it waits for queued bytes (re-arming src's read
// deadline so that an idle tunnel ends), then splices what is queued. EOF
// is passed on as a half-close; any other end closes both sides.
func (t *tunnel) pump(dst, src net.Conn, count *atomic.Uint64) {
	var armed time.Time // when src's read deadline was last set
	for {
		// Re-arm the idle deadline only once half a tick has passed: a
		// busy tunnel would otherwise reset a timer on every round.
		if now := time.Now(); now.Sub(armed) > t.tick/2 {
			_ = src.SetReadDeadline(now.Add(t.tick))
			armed = now
		}
		want, err := waitData(rawConn(src))
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && !t.isIdle() {
				continue
			}
			t.closeBoth()
			return
		}
		var n int64
		if want > 0 {
			n, err = io.Copy(rawConn(dst), &io.LimitedReader{R: rawConn(src), N: want})
			if n > 0 {
				t.touch()
				count.Add(uint64(n))
			}
		}
		switch {
		case err == nil && n == want && want > 0:
			continue
		case err == nil: // EOF
			closeWrite(dst)
			return
		case errors.Is(err, os.ErrDeadlineExceeded) && !t.isIdle():
			continue
		default:
			t.closeBoth()
			return
		}
	}
}

// rawConn unwraps an upstream to its connection so io.Copy sees two
// *net.TCPConn and splices.
func rawConn(c net.Conn) net.Conn {
	if u, ok := c.(*upstream); ok {
		return u.Conn
	}
	return c
}

// closeWrite half-closes c, through the proxy's own wrappers, if it
// supports it, and closes it otherwise.
func closeWrite(c net.Conn) {
	for {
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
			return
		}
		switch w := c.(type) {
		case *upstream:
			c = w.Conn
		case *idleConn:
			c = w.Conn
		case *prefixConn:
			c = w.Conn
		default:
			_ = c.Close()
			return
		}
	}
}

// idleReader reads from a tunnel's connection, retrying read-deadline
// expiries while the other direction is active.
type idleReader struct {
	t *tunnel
	c net.Conn
}

func (r *idleReader) Read(b []byte) (int, error) {
	for {
		_ = r.c.SetReadDeadline(time.Now().Add(r.t.tick))
		n, err := r.c.Read(b)
		if n > 0 {
			r.t.touch()
			return n, nil
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && !r.t.isIdle() {
			continue
		}
		return n, err
	}
}

// isConnError reports errors of the connection itself (end of stream,
// deadline, closed, reset) as opposed to malformed data.
func isConnError(err error) bool {
	var op *net.OpError
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed) ||
		errors.As(err, &op)
}
