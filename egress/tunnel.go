package egress

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
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
// credential is bound to may be intercepted (interceptTunnel), every other
// tunnel is spliced.
func (p *Proxy) tunnelFor(tgt target, d Decision) tunnelFunc {
	if p.creds != nil && p.creds.intercepts(tgt) {
		return p.interceptTunnel
	}
	return p.spliceTunnel
}

// spliceTunnel runs a transparent tunnel for the allowed decision d. Before
// any client byte reaches upstream, the first flight is inspected: if it is
// a TLS ClientHello whose SNI names another host than d's target, the tunnel
// is refused (rule "sni-mismatch") and closed. Upstream bytes flow to the
// client from the start, so server-speaks-first protocols work.
func (p *Proxy) spliceTunnel(client net.Conn, pending []byte, up *upstream, tgt target, d Decision) {
	t := newTunnel(p, client, up)
	_ = client.SetDeadline(time.Time{})
	_ = up.SetDeadline(time.Time{})

	down := make(chan struct{})
	go func() {
		defer close(down)
		t.pump(client, up, &p.stats.bytesDown)
	}()

	if t.firstFlight(pending, tgt, d) {
		t.pump(up, client, &p.stats.bytesUp)
	}
	<-down
	t.closeBoth()
}

// firstFlight reads the client's first bytes, refuses a fronted TLS
// ClientHello and forwards the rest. It reports whether to keep going.
func (t *tunnel) firstFlight(pending []byte, tgt target, d Decision) bool {
	raw, _, ok := t.inspectFirstFlight(pending, tgt, d)
	return ok && t.forwardFirst(raw)
}

// inspectFirstFlight reads the client's first bytes (the whole ClientHello
// if they start a TLS handshake) and refuses a fronted or malformed one,
// closing both sides. raw holds every byte read and pending, to be
// forwarded; hello is nil when the client does not speak TLS.
func (t *tunnel) inspectFirstFlight(pending []byte, tgt target, d Decision) (raw []byte, hello *clientHello, ok bool) {
	pr := bytes.NewReader(pending)
	src := io.MultiReader(pr, &idleReader{t: t, c: t.client})
	raw, hello, err := readFirstFlight(src)
	switch {
	case err != nil && isConnError(err):
		if len(raw) == 0 && errors.Is(err, io.EOF) {
			closeWrite(t.up) // the client half-closed before sending anything
		} else {
			t.closeBoth()
		}
		return nil, nil, false
	case err != nil:
		t.refuse(d, RuleBadTLS, err.Error())
		return nil, nil, false
	case hello != nil && hello.hasSNI && !sniMatches(hello.serverName, tgt):
		t.refuse(d, RuleSNIMismatch, "TLS ClientHello names "+quoteSNI(hello.serverName)+", not "+tgt.host())
		return nil, nil, false
	}
	if rest := pending[len(pending)-pr.Len():]; len(rest) > 0 {
		raw = append(raw, rest...) // read ahead by the handshake, not yet inspected
	}
	return raw, hello, true
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

// closeWrite half-closes c if it supports it, and closes it otherwise.
func closeWrite(c net.Conn) {
	if cw, ok := rawConn(c).(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
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
