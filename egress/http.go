package egress

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"
)

// maxHeaderBytes bounds an HTTP request's header block, maxHeaderFields its
// fields: parsed, an empty field costs far more than its bytes, and a
// block of them held twenty times its size while the request waited for
// its body (found by red-team round 49).
const (
	maxHeaderBytes  = 64 << 10
	maxHeaderFields = 500
)

var (
	errHeaderTooLarge = errors.New("request header too large")
	errTooManyHeaders = fmt.Errorf("more than %d request header fields", maxHeaderFields)
)

// checkHeaderBlock refuses a header block (peekHeader's) that has too many
// fields: the request line and the blank line are not fields.
func checkHeaderBlock(block []byte) error {
	if bytes.Count(block, []byte{'\n'})-2 > maxHeaderFields {
		return &requestError{status: http.StatusRequestHeaderFieldsTooLarge, rule: RuleBadRequest, msg: errTooManyHeaders.Error(), err: errTooManyHeaders}
	}
	return nil
}

// requestError is a request the proxy answers with an HTTP error and a
// refusing decision.
type requestError struct {
	status int
	rule   string
	msg    string
	host   string // the target as far as it was parsed
	port   int
	proto  string // ProtoConnect for a CONNECT request, else ProtoHTTP
	err    error
}

func (e *requestError) Error() string { return e.msg }
func (e *requestError) Unwrap() error { return e.err }

// proxyRequest is a parsed, validated proxy request.
type proxyRequest struct {
	req     *http.Request
	target  target
	connect bool
	head    []byte // the request line and header block as sent
}

// readProxyRequest reads one request from br and validates it as a proxy
// request: CONNECT host:port, or an absolute http:// URI whose Host header
// (if any) names the same host and port. Connection errors are returned as
// they are; anything the client got wrong is a *requestError.
func readProxyRequest(br *bufio.Reader) (*proxyRequest, error) {
	block, err := peekHeader(br)
	if err != nil {
		if errors.Is(err, errHeaderTooLarge) {
			return nil, &requestError{status: http.StatusRequestHeaderFieldsTooLarge, rule: RuleBadRequest, msg: err.Error(), err: err}
		}
		return nil, err
	}
	if err := checkHeaderBlock(block); err != nil {
		return nil, err
	}
	hostHeaders := headerValues(block, "Host")
	head := bytes.Clone(block)
	req, err := http.ReadRequest(br)
	if err != nil {
		if isConnError(err) {
			return nil, err
		}
		return nil, &requestError{status: http.StatusBadRequest, rule: RuleBadRequest, msg: "malformed request: " + err.Error(), err: err}
	}
	if req.Method == http.MethodConnect {
		t, err := parseHostPort(req.RequestURI, 0)
		if err != nil {
			host, port := splitLoose(req.RequestURI, 0)
			return nil, &requestError{status: http.StatusForbidden, rule: RuleInvalidTarget, msg: err.Error(), host: host, port: port, proto: ProtoConnect, err: err}
		}
		return &proxyRequest{req: req, target: t, connect: true}, nil
	}
	switch req.URL.Scheme {
	case "http":
	case "":
		return nil, &requestError{status: http.StatusBadRequest, rule: RuleBadRequest, msg: "not a proxy request: the request target must be an absolute http:// URI"}
	case "https":
		return nil, &requestError{status: http.StatusBadRequest, rule: RuleBadRequest, msg: "https:// URLs go through CONNECT"}
	default:
		return nil, &requestError{status: http.StatusBadRequest, rule: RuleUnsupported, msg: fmt.Sprintf("scheme %q is not supported", req.URL.Scheme)}
	}
	t, err := parseHostPort(req.URL.Host, 80)
	if err != nil {
		host, port := splitLoose(req.URL.Host, 80)
		return nil, &requestError{status: http.StatusForbidden, rule: RuleInvalidTarget, msg: err.Error(), host: host, port: port, err: err}
	}
	for _, hv := range hostHeaders {
		ht, err := parseHostPort(hv, 80)
		if err != nil || ht != t {
			return nil, &requestError{status: http.StatusForbidden, rule: RuleHostMismatch,
				msg:  fmt.Sprintf("Host header %q does not name the request target %s", hv, t),
				host: t.host(), port: t.port}
		}
	}
	req.URL.User = nil
	return &proxyRequest{req: req, target: t, head: head}, nil
}

// splitLoose splits host[:port] as far as it goes, for the record of a
// target that did not parse.
func splitLoose(s string, defaultPort int) (string, int) {
	host, portStr, err := net.SplitHostPort(s)
	if err != nil {
		return s, defaultPort
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		port = 0
	}
	return host, port
}

// peekHeader returns the request's header block (up to and including the
// blank line) without consuming it. br must be at least maxHeaderBytes big
// for large headers; a smaller reader yields errHeaderTooLarge when full.
func peekHeader(br *bufio.Reader) ([]byte, error) {
	scanned := 0
	for {
		buf, _ := br.Peek(br.Buffered())
		if i := headerEnd(buf, scanned); i >= 0 {
			return buf[:i], nil
		}
		scanned = max(len(buf)-3, 0)
		if len(buf) >= br.Size() {
			return nil, errHeaderTooLarge
		}
		if _, err := br.Peek(len(buf) + 1); err != nil {
			return nil, err
		}
	}
}

// headerEnd returns the length of the header block in buf (through the
// blank line ending it; bare LF accepted like net/http), or -1.
func headerEnd(buf []byte, from int) int {
	for i := from; i < len(buf); i++ {
		if buf[i] != '\n' {
			continue
		}
		switch {
		case i+1 < len(buf) && buf[i+1] == '\n':
			return i + 2
		case i+2 < len(buf) && buf[i+1] == '\r' && buf[i+2] == '\n':
			return i + 3
		}
	}
	return -1
}

// headerValues parses the header block with the same parser net/http uses
// and returns the values of key. http.ReadRequest drops the Host header of
// absolute-URI requests, so the proxy reads it here.
func headerValues(block []byte, key string) []string {
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(block)))
	if _, err := tp.ReadLine(); err != nil {
		return nil
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil
	}
	return h.Values(key)
}

// serveHTTP serves HTTP proxy requests on the connection until it closes,
// turns into a tunnel, or a request is refused.
func (h *connHandler) serveHTTP() {
	var cache httpUpstream
	defer cache.close(h.cs)
	for first := true; ; first = false {
		if !first {
			h.cr.rolling(h.p.idle)
		}
		pr, err := h.readRequest()
		if err != nil {
			var re *requestError
			if errors.As(err, &re) {
				h.refuseRequest(re)
			}
			return
		}
		if pr.connect {
			cache.close(h.cs)
			h.serveConnect(pr)
			return
		}
		if !h.forward(pr, &cache) {
			return
		}
	}
}

// readRequest reads a request, growing the buffer once for large headers.
func (h *connHandler) readRequest() (*proxyRequest, error) {
	pr, err := readProxyRequest(h.br)
	if errors.Is(err, errHeaderTooLarge) && h.br.Size() < maxHeaderBytes {
		h.br = bufio.NewReaderSize(h.br, maxHeaderBytes)
		pr, err = readProxyRequest(h.br)
	}
	return pr, err
}

// serveConnect answers a CONNECT request and runs the tunnel.
func (h *connHandler) serveConnect(pr *proxyRequest) {
	up, d, err := h.connect(ProtoConnect, pr.target)
	if err != nil {
		h.writeConnectError(err, d)
		return
	}
	h.cs.add(up)
	defer h.cs.remove(up)
	_ = h.client.SetWriteDeadline(time.Now().Add(h.p.handshake))
	if _, err := io.WriteString(h.client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		_ = up.Close()
		return
	}
	h.p.tunnelFor(pr.target, d)(h.client, h.pending(), up, pr.target, d)
}

// writeConnectError answers a request whose connect failed.
func (h *connHandler) writeConnectError(err error, d Decision) {
	var ue *UpstreamError
	switch {
	case errors.Is(err, ErrRefused):
		h.writeError(http.StatusForbidden, d.Rule, refusalText(d))
	case errors.Is(err, ErrLimit):
		h.writeError(http.StatusServiceUnavailable, d.Rule, refusalText(d))
	case errors.As(err, &ue):
		h.writeError(http.StatusBadGateway, "", "agentbox egress: "+d.Target()+" is allowed but unreachable: "+ue.Err.Error()+"\n")
	default:
		h.writeError(http.StatusBadGateway, "", "agentbox egress: "+err.Error()+"\n")
	}
}

// refuseRequest records and answers a request the proxy cannot serve.
func (h *connHandler) refuseRequest(re *requestError) {
	proto := re.proto
	if proto == "" {
		proto = ProtoHTTP
	}
	d := Decision{Time: time.Now(), Proto: proto, Host: re.host, Port: re.port,
		Addr: nonCanonicalAddr(re.err), Rule: re.rule, Reason: re.msg}
	h.p.record(d)
	h.writeError(re.status, re.rule, refusalText(d))
}

func refusalText(d Decision) string {
	t := d.Target()
	if t == "" {
		t = "request"
	}
	return fmt.Sprintf("agentbox egress: %s refused by %s: %s\n", t, d.Rule, d.Reason)
}

// writeError writes a short plain-text error response and asks the client
// to close. rule, when set, goes into X-Agentbox-Deny.
func (h *connHandler) writeError(status int, rule, body string) {
	_ = h.client.SetWriteDeadline(time.Now().Add(h.p.handshake))
	_, _ = io.WriteString(h.client, errorResponse(status, rule, body))
}

// errorResponse is a short plain-text error response that asks the client
// to close. rule, when set, goes into X-Agentbox-Deny.
func errorResponse(status int, rule, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	if rule != "" {
		fmt.Fprintf(&b, "X-Agentbox-Deny: %s\r\n", headerSafe(rule))
	}
	body = bodySafe(body)
	fmt.Fprintf(&b, "Content-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	return b.String()
}

// headerSafe drops bytes that cannot appear in a header value.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r > 0x7e {
			return -1
		}
		return r
	}, s)
}

// bodySafe keeps the refusal body to one printable line.
func bodySafe(s string) string {
	s = strings.TrimRight(s, "\n")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > 512 {
		s = s[:512]
	}
	return s + "\n"
}
