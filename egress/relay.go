package egress

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"time"
)

// relay carries the HTTP/1.1 requests of one tunnel, one at a time, over
// one upstream connection: an intercepted tunnel (TLS on both sides,
// scheme "https") or a tunnel that carries plain HTTP (scheme "http").
type relay struct {
	p             *Proxy
	tgt           target
	d             Decision // the tunnel's
	scheme        string
	bound, others []*credential
	// echoes are the credentials bound to the tunnel's host on any of its
	// ports, injected or not (over plain HTTP none is): their values are
	// masked in its responses once they went out, on any connection.
	echoes []*credential
	client net.Conn
	conn   net.Conn // the client's socket, under client's layers
	cbr    *bufio.Reader
	up     net.Conn
	ubr    *upstreamReader
	// sent holds every value injected on up so far (see echoMask).
	sent echoMask
}

// serve relays requests until either side closes or a request is refused.
func (r *relay) serve() {
	defer r.sent.wipe()
	r.sent.watch = len(r.echoes) > 0
	for {
		req, head, err := r.readRequest()
		if err != nil {
			var re *requestError
			if errors.As(err, &re) {
				r.refuse(re.status, re.rule, re.msg, "")
			}
			return
		}
		if !r.exchange(req, head) {
			return
		}
	}
}

// readRequest reads the next request, growing the buffer once for large
// headers.
func (r *relay) readRequest() (*http.Request, []byte, error) {
	req, head, err := readTunnelRequest(r.cbr, r.tgt, r.scheme)
	if errors.Is(err, errHeaderTooLarge) && r.cbr.Size() < maxHeaderBytes {
		r.cbr = bufio.NewReaderSize(r.cbr, maxHeaderBytes)
		req, head, err = readTunnelRequest(r.cbr, r.tgt, r.scheme)
	}
	return req, head, err
}

// exchange relays one request and its response. It reports whether the
// connection may carry another request.
func (r *relay) exchange(req *http.Request, head []byte) bool {
	p := r.p
	if l := findLeak(r.others, head, req.Header); l != nil {
		r.refuseLeak(l)
		return false
	}
	var scan *leakReader
	body := io.Reader(req.Body)
	if len(r.others) > 0 && req.Body != http.NoBody {
		scan = newLeakReader(req.Body, r.others)
		body = scan
	}
	if strings.EqualFold(strings.TrimSpace(req.Header.Get("Expect")), "100-continue") {
		req.Header.Del("Expect")
		if _, err := io.WriteString(r.client, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			return false
		}
	}
	release := func() {}
	if scan != nil {
		held, rel, err := p.holdBody(context.Background(), r.conn, scan, req.ContentLength, p.handshake)
		switch {
		case errors.Is(err, errBodyBudget):
			r.refuse(http.StatusServiceUnavailable, RuleLimitHeldBodies, p.budgetReason(req.ContentLength), "")
			return false
		case err != nil:
			if scan.leak != nil {
				r.refuseLeak(&leak{scan.leak, "the body"})
			}
			return false
		}
		release = rel
		defer release()
		if held != nil {
			body = bytes.NewReader(held)
		}
	}
	upgrade := upgradeProtocol(req.Header)
	stripHopByHop(req.Header)

	ctx, cancel := context.WithTimeout(context.Background(), p.handshake)
	mask := &r.sent
	// Before the head: it then asks for a response the mask sees into.
	if ce := r.recall(mask); ce != nil {
		cancel()
		r.refuseUnchecked(ce)
		return false
	}
	hb, err := buildHead(ctx, req, r.bound, upgrade, mask, r.d.Addr)
	cancel()
	if err != nil {
		var ce *credentialError
		if errors.As(err, &ce) {
			p.log.Warn("egress: credential not injected", "credential", ce.cred.name, "target", r.tgt.String(), "err", ce.Error())
			r.refuse(http.StatusBadGateway, RuleCredentialError, ce.Error(), ce.cred.name)
		} else {
			r.refuse(http.StatusBadRequest, RuleBadRequest, err.Error(), "")
		}
		return false
	}
	upgrade = hb.upgrade
	_, err = r.upw().Write(hb.bytes())
	hb.wipe()
	if err != nil {
		return false
	}
	for _, u := range hb.used {
		p.record(r.decision(true, RuleCredentialUse,
			fmt.Sprintf("%s injected into %s (bound to %s)", u.cred.name, strings.Join(u.headers, ", "), u.cred.bound),
			u.cred.name))
	}
	for _, u := range hb.unused {
		reason := fmt.Sprintf("%s's placeholder in %s was sent as it is: its value goes only into %s",
			u.cred.name, strings.Join(u.headers, ", "), u.cred.headersText())
		p.log.Warn("egress: "+reason, "target", r.tgt.String())
		p.record(r.decision(true, RuleCredentialHeader, reason, u.cred.name))
	}

	err = r.sendBody(req, body)
	release() // the held body has been sent, or never will be
	if err != nil {
		var le *leakError
		switch {
		case scan != nil && scan.leak != nil:
			r.refuseLeak(&leak{scan.leak, "the body"})
		case errors.As(err, &le):
			r.refuseLeak(le.leak)
		}
		return false
	}

	resp, err := r.ubr.readResponse(req)
	if err == nil {
		// A value may have gone out on another connection while the
		// response was awaited (a long poll): its head is masked too.
		if ce := r.recall(mask); ce != nil {
			resp.Body.Close()
			r.refuseUnchecked(ce)
			return false
		}
	}
	if err != nil {
		why := "reading the upstream response failed: " + err.Error()
		if mask.readable() {
			// The error may quote the response (a malformed status line
			// or header), escaped: no mask would match the value there;
			// and a value may have gone out on another connection while
			// the response was awaited (red-team round 56).
			why = upstreamTextWithheld
		}
		r.refuse(http.StatusBadGateway, "", why, "")
		return false
	}
	defer resp.Body.Close()
	if mask.readable() {
		defer r.reportEchoes(mask)
	}
	if mask.active() && !r.maskResponse(resp, mask) {
		return false
	}
	if len(r.echoes) > 0 && resp.Body != http.NoBody && resp.StatusCode != http.StatusSwitchingProtocols {
		resp.Body = newLateBody(resp, r.echoes, mask, r.p.handshake)
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		if upgrade == "" {
			r.refuse(http.StatusBadGateway, "", "the upstream switched protocols unasked", "")
			return false
		}
		if proto := multiplexedUpgrade(resp); proto != "" {
			r.refuse(http.StatusBadGateway, RuleUnsupported,
				fmt.Sprintf("the upstream switched protocols (%s) although not asked to: its streams would name hosts the proxy cannot check", proto), "")
			return false
		}
		if why := compressedStream(resp); mask.active() && why != "" {
			r.refuse(http.StatusBadGateway, RuleResponseUnchecked,
				fmt.Sprintf("the upstream switched to a compressed stream (%s) although not asked to, so it cannot be checked for the injected credential", why), "")
			return false
		}
		r.switchProtocols(resp, mask)
		return false
	}
	upstreamClose := resp.Close || resp.ContentLength < 0 && !chunked(resp.TransferEncoding) && resp.Body != http.NoBody
	stripHopByHop(resp.Header)
	resp.Close = upstreamClose || req.Close
	bw := bufio.NewWriterSize(&countWriter{w: r.client, n: &p.stats.bytesDown}, 16<<10)
	if resp.Body != http.NoBody {
		resp.Body = &flushReader{ReadCloser: resp.Body, w: bw}
	}
	if err := resp.Write(writerOnly{bw}); err != nil || bw.Flush() != nil {
		return false
	}
	return !resp.Close
}

// upstreamTextWithheld replaces the text of an upstream's malformed answer
// on a connection to a host credentials are bound to.
const upstreamTextWithheld = "reading the upstream response failed; the upstream's text is withheld, as it may repeat an injected credential"

// recall adds to mask the values of the credentials bound to the tunnel's
// host that went into a request before, on any connection, and are not in
// it yet: an upstream that stores a request's headers may show them in a
// response on another connection. A value that cannot be fetched now
// refuses the request: its response could not be checked. What went out
// Basic-encoded is masked only on the connection that sent it: the
// encoding holds the user name, which is not kept.
func (r *relay) recall(mask *echoMask) *credentialError {
	return recallInto(r.echoes, mask, r.p.handshake)
}

// refuseUnchecked refuses a request whose response could not be checked
// for a credential whose value could not be fetched.
func (r *relay) refuseUnchecked(ce *credentialError) {
	r.p.log.Warn("egress: a response could not be checked for a credential", "credential", ce.cred.name, "target", r.tgt.String(), "err", ce.Error())
	r.refuse(http.StatusBadGateway, RuleCredentialError, ce.Error(), ce.cred.name)
}

// upw writes to the upstream, counting.
func (r *relay) upw() io.Writer { return &countWriter{w: r.up, n: &r.p.stats.bytesUp} }

// sendBody sends the request body with its own framing: exactly
// Content-Length bytes, or chunks and then the trailers (checked for
// placeholders).
func (r *relay) sendBody(req *http.Request, body io.Reader) error {
	if req.Body == http.NoBody {
		return nil
	}
	bw := bufio.NewWriterSize(r.upw(), 16<<10)
	src := &flushReader{ReadCloser: io.NopCloser(body), w: bw}
	if req.ContentLength > 0 {
		n, err := io.Copy(writerOnly{bw}, src)
		if err == nil && n != req.ContentLength {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		return bw.Flush()
	}
	cw := httputil.NewChunkedWriter(bw)
	if _, err := io.Copy(cw, src); err != nil {
		return err
	}
	if l := findLeakIn(r.others, req.Trailer, "a trailer"); l != nil {
		return &leakError{l}
	}
	if err := cw.Close(); err != nil {
		return err
	}
	for k, vs := range req.Trailer {
		for _, v := range vs {
			if validHeaderName(k) && validHeaderValue(v) {
				fmt.Fprintf(bw, "%s: %s\r\n", k, v)
			}
		}
	}
	_, _ = io.WriteString(bw, "\r\n")
	return bw.Flush()
}

// switchProtocols passes a 101 response on and then relays bytes both
// ways until both sides are done (WebSocket and other upgrades).
func (r *relay) switchProtocols(resp *http.Response, mask *echoMask) {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %s\r\n", resp.Status)
	_ = resp.Header.Write(&b)
	b.WriteString("\r\n")
	if _, err := io.WriteString(r.client, b.String()); err != nil {
		return
	}
	// The client's bytes are scanned for the placeholders that may not go
	// to this host, as its requests were; one found ends the stream.
	var up io.Reader = r.cbr
	var scan *leakReader
	if len(r.others) > 0 {
		scan = newLeakReader(r.cbr, r.others)
		scan.pass = true
		up = scan
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := io.Copy(r.upw(), up)
		if err == nil {
			closeWrite(r.up)
		} else {
			_ = r.up.Close()
			_ = r.client.Close()
		}
		if scan != nil && scan.leak != nil {
			l := &leak{scan.leak, "the upgraded stream"}
			r.p.record(r.decision(false, RuleCredentialLeak, r.leakReason(l)+"; the stream was closed", l.cred.name))
		}
	}()
	var down io.Reader = r.ubr
	switch {
	case len(r.echoes) > 0 && isWebSocket(resp):
		// Masked frame by frame: a value split across fragments has a
		// frame's head in its middle (red-team round 55).
		ws := newWSMask(r.ubr, r.echoes, mask, r.p.handshake)
		defer ws.wipe()
		down = ws
	default:
		if mask.active() {
			mr := mask.reader(r.ubr, "the upgraded stream")
			defer mr.wipe()
			down = mr
		}
		if len(r.echoes) > 0 {
			lm := &lateMask{src: down, echoes: r.echoes, mask: mask, timeout: r.p.handshake, where: "the upgraded stream", hidden: compressedStream(resp)}
			defer lm.wipe()
			down = lm
		}
	}
	_, err := io.Copy(&countWriter{w: r.client, n: &r.p.stats.bytesDown}, down)
	if err == nil {
		closeWrite(r.client)
	} else {
		_ = r.up.Close()
		_ = r.client.Close()
	}
	<-done
}

// decision is a Decision about a request in this tunnel.
func (r *relay) decision(allowed bool, rule, reason, cred string) Decision {
	proto := ProtoHTTPS
	if r.scheme == "http" {
		proto = ProtoHTTP
	}
	return Decision{Time: time.Now(), Proto: proto, Host: r.tgt.host(), Port: r.tgt.port,
		Addr: r.d.Addr, Allowed: allowed, Rule: rule, Reason: reason, Credential: cred}
}

// refuse records a refusal and answers the client with status.
func (r *relay) refuse(status int, rule, reason, cred string) {
	d := r.decision(false, rule, reason, cred)
	if rule != "" {
		r.p.record(d)
	}
	text := "agentbox egress: " + reason + "\n"
	if rule != "" {
		text = refusalText(d)
	}
	_, _ = io.WriteString(r.client, errorResponse(status, rule, text))
}

func (r *relay) refuseLeak(l *leak) {
	r.refuse(http.StatusForbidden, RuleCredentialLeak, r.leakReason(l), l.cred.name)
}

// leakReason says why the placeholder l may not go to this tunnel's host.
func (r *relay) leakReason(l *leak) string {
	why := fmt.Sprintf("%s may go only to %s", l.cred.name, l.cred.bound)
	if r.scheme == "http" {
		why = fmt.Sprintf("credentials are injected only over HTTPS, to %s", l.cred.bound)
	}
	return fmt.Sprintf("the placeholder of credential %s is in %s, and %s", l.cred.name, l.where, why)
}

// refuseUpstream records that TLS to the upstream failed and answers the
// client's first request with 502.
func (r *relay) refuseUpstream(err error) {
	d := refuse(r.d, RuleUpstreamTLS, "TLS to the upstream failed: "+err.Error())
	d.Time = time.Now()
	r.p.record(d)
	if _, _, err := readTunnelRequest(r.cbr, r.tgt, r.scheme); err != nil && isConnError(err) {
		return
	}
	_, _ = io.WriteString(r.client, errorResponse(http.StatusBadGateway, RuleUpstreamTLS, refusalText(d)))
}

// leakError carries a leak out of sendBody.
type leakError struct{ leak *leak }

func (e *leakError) Error() string { return "credential placeholder in " + e.leak.where }

// writerOnly hides a bufio.Writer's ReadFrom, which reads into the buffer
// a flushReader flushes.
type writerOnly struct{ io.Writer }

// flushReader flushes w before each read of the body it wraps: what was
// written so far leaves before the relay waits for more (streamed
// responses such as server-sent events arrive as they come), and a read
// that returns much at once still goes out in few TLS records.
type flushReader struct {
	io.ReadCloser
	w *bufio.Writer
}

func (f *flushReader) Read(b []byte) (int, error) {
	if f.w.Buffered() > 0 {
		if err := f.w.Flush(); err != nil {
			return 0, err
		}
	}
	return f.ReadCloser.Read(b)
}

// upgradeProtocol returns the Upgrade header of a request that asks to
// switch protocols (Connection: upgrade), or "".
func upgradeProtocol(h http.Header) string {
	for _, v := range h.Values("Connection") {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "upgrade") {
				return h.Get("Upgrade")
			}
		}
	}
	return ""
}
