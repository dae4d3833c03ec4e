package egress

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"
)

// SOCKS protocol constants (RFC 1928).
const (
	socks4Version = 0x04
	socks5Version = 0x05

	socksMethodNone         = 0x00
	socksMethodNoAcceptable = 0xff

	socksCmdConnect      = 0x01
	socksCmdBind         = 0x02
	socksCmdUDPAssociate = 0x03

	socksAtypIPv4   = 0x01
	socksAtypDomain = 0x03
	socksAtypIPv6   = 0x04

	socksReplySucceeded          = 0x00
	socksReplyGeneralFailure     = 0x01
	socksReplyNotAllowed         = 0x02
	socksReplyNetworkUnreachable = 0x03
	socksReplyHostUnreachable    = 0x04
	socksReplyConnectionRefused  = 0x05
	socksReplyTTLExpired         = 0x06
	socksReplyCmdNotSupported    = 0x07
	socksReplyAtypNotSupported   = 0x08
)

// socksError is a malformed SOCKS5 message and the reply it deserves (0 when
// the connection should just be closed).
type socksError struct {
	reply byte
	msg   string
}

func (e *socksError) Error() string { return "socks5: " + e.msg }

// socksRequest is a parsed SOCKS5 request.
type socksRequest struct {
	cmd  byte
	atyp byte
	host string // the address as sent: domain text or IP
	port int
}

// readSOCKS5Greeting reads the version/methods message.
func readSOCKS5Greeting(r io.Reader) ([]byte, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	if hdr[0] != socks5Version {
		return nil, &socksError{msg: fmt.Sprintf("version %d", hdr[0])}
	}
	if hdr[1] == 0 {
		return nil, &socksError{msg: "no authentication methods offered"}
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return nil, err
	}
	return methods, nil
}

// readSOCKS5Request reads a request message. The host is returned as sent;
// the caller normalises it.
func readSOCKS5Request(r io.Reader) (socksRequest, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return socksRequest{}, err
	}
	if hdr[0] != socks5Version {
		return socksRequest{}, &socksError{msg: fmt.Sprintf("request version %d", hdr[0])}
	}
	if hdr[2] != 0 {
		return socksRequest{}, &socksError{reply: socksReplyGeneralFailure, msg: "reserved byte not zero"}
	}
	req := socksRequest{cmd: hdr[1], atyp: hdr[3]}
	switch req.atyp {
	case socksAtypIPv4:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return socksRequest{}, err
		}
		req.host = netip.AddrFrom4(b).String()
	case socksAtypIPv6:
		var b [16]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return socksRequest{}, err
		}
		req.host = netip.AddrFrom16(b).String()
	case socksAtypDomain:
		var n [1]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return socksRequest{}, err
		}
		if n[0] == 0 {
			return socksRequest{}, &socksError{reply: socksReplyGeneralFailure, msg: "empty domain name"}
		}
		b := make([]byte, n[0])
		if _, err := io.ReadFull(r, b); err != nil {
			return socksRequest{}, err
		}
		req.host = string(b)
	default:
		return socksRequest{}, &socksError{reply: socksReplyAtypNotSupported, msg: fmt.Sprintf("address type %d", req.atyp)}
	}
	var pb [2]byte
	if _, err := io.ReadFull(r, pb[:]); err != nil {
		return socksRequest{}, err
	}
	req.port = int(pb[0])<<8 | int(pb[1])
	return req, nil
}

// target normalises the request's destination.
func (r socksRequest) target() (target, error) {
	if r.port == 0 {
		return target{}, fmt.Errorf("%w: port 0", ErrInvalidHost)
	}
	t, err := parseHost(r.host)
	if err != nil {
		return target{}, err
	}
	t.port = r.port
	return t, nil
}

// socksReply encodes a reply with an unspecified bound address: the
// sandbox has no use for the proxy's outbound address.
func socksReply(code byte) []byte {
	return []byte{socks5Version, code, 0, socksAtypIPv4, 0, 0, 0, 0, 0, 0}
}

func (h *connHandler) writeSOCKS(b []byte) error {
	_ = h.client.SetWriteDeadline(time.Now().Add(h.p.handshake))
	_, err := h.client.Write(b)
	return err
}

// serveSOCKS5 handles one SOCKS5 connection: no-authentication only, CONNECT
// only.
func (h *connHandler) serveSOCKS5() {
	methods, err := readSOCKS5Greeting(h.br)
	if err != nil {
		h.socksProtocolError(err, socksRequest{})
		return
	}
	if !containsByte(methods, socksMethodNone) {
		_ = h.writeSOCKS([]byte{socks5Version, socksMethodNoAcceptable})
		h.p.record(Decision{Proto: ProtoSOCKS5, Rule: RuleUnsupported,
			Reason: "client offers no SOCKS5 method but \"no authentication\""})
		return
	}
	if err := h.writeSOCKS([]byte{socks5Version, socksMethodNone}); err != nil {
		return
	}
	req, err := readSOCKS5Request(h.br)
	if err != nil {
		h.socksProtocolError(err, req)
		return
	}
	if req.cmd != socksCmdConnect {
		name := map[byte]string{socksCmdBind: "BIND", socksCmdUDPAssociate: "UDP ASSOCIATE"}[req.cmd]
		if name == "" {
			name = fmt.Sprintf("command %d", req.cmd)
		}
		h.p.record(Decision{Time: time.Now(), Proto: ProtoSOCKS5, Host: req.host, Port: req.port,
			Rule: RuleUnsupported, Reason: "SOCKS5 " + name + " is not supported"})
		_ = h.writeSOCKS(socksReply(socksReplyCmdNotSupported))
		return
	}
	t, err := req.target()
	if err != nil {
		h.p.record(Decision{Time: time.Now(), Proto: ProtoSOCKS5, Host: req.host, Port: req.port,
			Addr: nonCanonicalAddr(err), Rule: RuleInvalidTarget, Reason: err.Error()})
		_ = h.writeSOCKS(socksReply(socksReplyNotAllowed))
		return
	}
	_ = h.client.SetReadDeadline(time.Time{})
	up, d, err := h.connect(ProtoSOCKS5, t)
	if err != nil {
		_ = h.writeSOCKS(socksReply(socksReplyFor(err)))
		return
	}
	h.cs.add(up)
	defer h.cs.remove(up)
	if err := h.writeSOCKS(socksReply(socksReplySucceeded)); err != nil {
		_ = up.Close()
		return
	}
	h.p.tunnelFor(t, d)(h.client, h.pending(), up, t, d)
}

// socksProtocolError records and answers a malformed SOCKS5 message.
func (h *connHandler) socksProtocolError(err error, req socksRequest) {
	var se *socksError
	if !errors.As(err, &se) {
		return // the connection failed or timed out: nothing was asked
	}
	h.p.record(Decision{Time: time.Now(), Proto: ProtoSOCKS5, Host: req.host, Port: req.port,
		Rule: RuleBadRequest, Reason: se.Error()})
	if se.reply != 0 {
		_ = h.writeSOCKS(socksReply(se.reply))
	}
}

// refuseSOCKS4 answers a SOCKS4 request with "rejected".
func (h *connHandler) refuseSOCKS4() {
	h.p.record(Decision{Time: time.Now(), Proto: "socks4", Rule: RuleUnsupported,
		Reason: "SOCKS4 is not supported; use SOCKS5 or HTTP"})
	_ = h.client.SetWriteDeadline(time.Now().Add(h.p.handshake))
	_, _ = h.client.Write([]byte{0x00, 0x5b, 0, 0, 0, 0, 0, 0})
}

// socksReplyFor maps a connect error to a SOCKS5 reply code.
func socksReplyFor(err error) byte {
	var ue *UpstreamError
	switch {
	case errors.Is(err, ErrRefused):
		return socksReplyNotAllowed
	case errors.Is(err, ErrLimit):
		return socksReplyGeneralFailure
	case errors.As(err, &ue):
		return dialReply(ue.Err)
	}
	return socksReplyGeneralFailure
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// nonCanonicalAddr returns the address a non-canonical IPv4 spelling
// decodes to, for the decision record.
func nonCanonicalAddr(err error) netip.Addr {
	var nc *NonCanonicalIPError
	if errors.As(err, &nc) {
		return nc.Addr
	}
	return netip.Addr{}
}
