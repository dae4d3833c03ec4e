package egress

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"
)

// hopByHop lists the headers that belong to one connection and are never
// forwarded (RFC 9110 section 7.6.1), besides those named in Connection and
// every Proxy-* header.
var hopByHop = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer",
	"Transfer-Encoding", "Upgrade",
}

// stripHopByHop removes hop-by-hop and Proxy-* headers from h.
func stripHopByHop(h http.Header) {
	for _, v := range h.Values("Connection") {
		for tok := range strings.SplitSeq(v, ",") {
			if tok = strings.TrimSpace(tok); tok != "" {
				h.Del(tok)
			}
		}
	}
	for _, k := range hopByHop {
		h.Del(k)
	}
	for k := range h {
		if strings.HasPrefix(k, "Proxy-") {
			delete(h, k)
		}
	}
}

// httpUpstream is the upstream connection a keep-alive client connection
// last used, reused while the client keeps asking for the same target.
type httpUpstream struct {
	up *upstream
	br *upstreamReader
	t  target
	d  Decision
}

func (u *httpUpstream) close(cs *connSet) {
	if u.up != nil {
		cs.remove(u.up)
		_ = u.up.Close()
	}
	*u = httpUpstream{}
}

// forward sends one plain-HTTP request upstream and its response back. It
// reports whether the client connection may carry another request.
func (h *connHandler) forward(pr *proxyRequest, cache *httpUpstream) bool {
	req := pr.req
	if h.plainLeak(pr) {
		return false
	}
	// Decide, and connect, before reading a byte of the body: a refused
	// request costs no memory and leaves its decision.
	reused := cache.up != nil && cache.t == pr.target
	if reused {
		d := cache.d
		d.Time = time.Now()
		h.p.record(d)
	} else if !h.dialUpstream(pr.target, cache) {
		return false
	}
	clientClose := req.Close
	if strings.EqualFold(strings.TrimSpace(req.Header.Get("Expect")), "100-continue") {
		req.Header.Del("Expect")
		_ = h.client.SetWriteDeadline(time.Now().Add(h.p.idle))
		if _, err := io.WriteString(h.client, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			return false
		}
	}
	var scan *leakReader
	var trailer *trailerCheck
	release := func() {}
	if h.p.creds != nil && req.Body != http.NoBody {
		scan = newLeakReader(req.Body, h.p.creds.all)
		req.Body = scan
		if req.Trailer != nil {
			trailer = &trailerCheck{ReadCloser: scan, req: req, creds: h.p.creds.all}
			req.Body = trailer
		}
		held, rel, err := h.p.holdBody(h.ctx, h.client, scan, req.ContentLength, h.cr.bodyWait(h.p.handshake))
		switch {
		case errors.Is(err, errBodyBudget):
			d := refuse(cache.d, RuleLimitHeldBodies, h.p.budgetReason(req.ContentLength))
			d.Time = time.Now()
			cache.close(h.cs)
			h.p.record(d)
			h.writeError(http.StatusServiceUnavailable, d.Rule, refusalText(d))
			return false
		case err != nil:
			if scan.leak != nil {
				h.refuseLeak(pr.target, cache.d.Addr, &leak{scan.leak, "the body"})
			}
			cache.close(h.cs)
			return false
		}
		release = rel
		if held != nil {
			req.Body = io.NopCloser(bytes.NewReader(held))
		}
	}
	defer release()
	h.cr.rolling(h.p.idle)
	stripHopByHop(req.Header)
	echoes, mask := h.echoesOf(pr.target, cache.d.Addr)
	defer mask.wipe()
	if len(echoes) > 0 {
		// Asked whole and uncompressed: a mask reads the answer (see
		// latemask.go).
		for _, k := range withheldHeaders {
			req.Header.Del(k)
		}
		req.Header.Set("Accept-Encoding", "identity")
	}
	req.RequestURI = ""
	req.Host = pr.target.hostHeader(80)
	req.URL.Host = req.Host
	req.Close = false

	resp, err := h.roundTrip(req, cache)
	release() // the held body has been sent, or never will be
	if err != nil && reused && req.Body == http.NoBody {
		// The server closed the kept-alive connection before this request
		// reached it: a request without a body is safe to send again.
		cache.close(h.cs)
		if !h.dialUpstream(pr.target, cache) {
			return false
		}
		resp, err = h.roundTrip(req, cache)
	}
	if err != nil {
		cache.close(h.cs)
		if scan != nil && scan.leak != nil {
			h.refuseLeak(pr.target, cache.d.Addr, &leak{scan.leak, "the body"})
			return false
		}
		if trailer != nil && trailer.leak != nil {
			h.refuseLeak(pr.target, cache.d.Addr, trailer.leak)
			return false
		}
		why := err.Error()
		if len(echoes) > 0 {
			why = upstreamTextWithheld // as relay.exchange does (red-team round 56)
		}
		h.writeError(http.StatusBadGateway, "", "agentbox egress: "+why+"\n")
		return false
	}
	defer resp.Body.Close()
	if !h.maskPlain(resp, echoes, mask, cache) {
		return false
	}
	upstreamClose := resp.Close || resp.ContentLength < 0 && !chunked(resp.TransferEncoding) && resp.Body != http.NoBody
	stripHopByHop(resp.Header)
	resp.Close = upstreamClose || clientClose

	cw := &countWriter{w: &idleConn{Conn: h.client, idle: h.p.idle}, n: &h.p.stats.bytesDown}
	err = resp.Write(cw)
	reportEchoes(h.p, mask, func(reason, cred string) Decision {
		d := refuse(cache.d, RuleCredentialLeak, reason)
		d.Time, d.Credential = time.Now(), cred
		return d
	})
	if err != nil || upstreamClose {
		cache.close(h.cs)
		return false
	}
	return !clientClose
}

// trailerCheck reads a chunked request body and, at its end, when the
// body's reader has read the trailer into req.Trailer, looks for
// placeholders there: req.Write sends the trailer after the body, so one
// found is returned instead of io.EOF, and neither the body's end nor the
// trailer goes upstream.
type trailerCheck struct {
	io.ReadCloser
	req   *http.Request
	creds []*credential
	leak  *leak
}

func (t *trailerCheck) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if err == io.EOF {
		if t.leak = findLeakIn(t.creds, t.req.Trailer, "a trailer"); t.leak != nil {
			return n, &leakError{t.leak}
		}
	}
	return n, err
}

// dialUpstream decides and connects t into cache, answering the client
// itself when that fails.
func (h *connHandler) dialUpstream(t target, cache *httpUpstream) bool {
	cache.close(h.cs)
	up, d, err := h.connect(ProtoHTTP, t)
	if err != nil {
		h.writeConnectError(err, d)
		return false
	}
	h.cs.add(up)
	*cache = httpUpstream{up: up, br: newUpstreamReader(&idleConn{Conn: up.Conn, idle: h.p.idle}), t: t, d: d}
	return true
}

// roundTrip writes req to the cached upstream and reads its final response.
func (h *connHandler) roundTrip(req *http.Request, cache *httpUpstream) (*http.Response, error) {
	upw := &countWriter{w: &idleConn{Conn: cache.up.Conn, idle: h.p.idle}, n: &h.p.stats.bytesUp}
	if err := req.Write(upw); err != nil {
		return nil, fmt.Errorf("sending the request upstream failed: %w", err)
	}
	resp, err := cache.br.readResponse(req)
	if err == nil && resp.StatusCode == http.StatusSwitchingProtocols {
		_ = resp.Body.Close()
		err = errSwitchingProtocols
	}
	if err != nil {
		return nil, fmt.Errorf("reading the upstream response failed: %w", err)
	}
	return resp, nil
}

var errSwitchingProtocols = errors.New("upstream switched protocols, which a plain-HTTP proxy request cannot do")

func chunked(te []string) bool { return len(te) > 0 && te[0] == "chunked" }

// countWriter counts bytes written into a shared counter.
type countWriter struct {
	w io.Writer
	n *atomic.Uint64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(uint64(n))
	return n, err
}

// idleConn re-arms a rolling deadline before each read or write, so a
// transfer may take as long as it keeps moving.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c *idleConn) Read(b []byte) (int, error) {
	_ = c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(b)
}

func (c *idleConn) Write(b []byte) (int, error) {
	_ = c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	return c.Conn.Write(b)
}

// clientReader is what a connection's bufio.Reader reads from: during the
// handshake every read shares one absolute deadline (a trickling client
// cannot stretch it); afterwards each read gets a rolling idle deadline.
type clientReader struct {
	c        net.Conn
	deadline time.Time
	roll     time.Duration
}

func (r *clientReader) rolling(d time.Duration) { r.roll = d }

// bodyWait is how long a request may wait for room to hold its body: at
// most d, and during the handshake no longer than its deadline, past
// which the body could not be read anyway.
func (r *clientReader) bodyWait(d time.Duration) time.Duration {
	if r.roll > 0 {
		return d
	}
	return min(d, time.Until(r.deadline))
}

func (r *clientReader) Read(b []byte) (int, error) {
	if r.roll > 0 {
		_ = r.c.SetReadDeadline(time.Now().Add(r.roll))
	} else {
		_ = r.c.SetReadDeadline(r.deadline)
	}
	return r.c.Read(b)
}

// echoesOf returns the credentials bound to t, whose values, once they
// went out over HTTPS, are masked in t's plain-HTTP answers too (red-team
// round 55: the bound host's plain side showed a value it stored), and
// the mask for them.
func (h *connHandler) echoesOf(t target, at netip.Addr) ([]*credential, *echoMask) {
	if h.p.creds == nil {
		return nil, &echoMask{}
	}
	echoes := h.p.creds.echoes(t, at)
	return echoes, &echoMask{watch: len(echoes) > 0}
}

// maskPlain masks the values of echoes that went out in resp, and makes
// its body read through a lateMask; a response the mask cannot read is
// answered with a refusal. It reports whether resp may go on.
func (h *connHandler) maskPlain(resp *http.Response, echoes []*credential, mask *echoMask, cache *httpUpstream) bool {
	if len(echoes) == 0 {
		return true
	}
	why := ""
	if ce := recallInto(echoes, mask, h.p.handshake); ce != nil {
		why = ce.Error()
	} else if mask.active() {
		why = maskHead(resp, mask)
	}
	if why != "" {
		cache.close(h.cs)
		d := refuse(cache.d, RuleResponseUnchecked, why)
		d.Time = time.Now()
		h.p.record(d)
		h.writeError(http.StatusBadGateway, d.Rule, refusalText(d))
		return false
	}
	if resp.Body != http.NoBody {
		resp.Body = newLateBody(resp, echoes, mask, h.p.handshake)
	}
	return true
}
