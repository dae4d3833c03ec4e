package egress

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"time"
)

// A TLS 1.3 server that wants another key share answers the first
// ClientHello with a HelloRetryRequest, and the client sends a second
// ClientHello, still in the clear, which may name another server. Go's
// crypto/tls refuses a changed name, but OpenSSL runs its servername
// callback again, so a front end would route by a name the first check
// never saw. A spliced TLS tunnel therefore reads the head of the server's
// first handshake message and, on a HelloRetryRequest, checks the second
// ClientHello like the first (spliceTLS).

// helloRetryRandom is the ServerHello.random that marks a
// HelloRetryRequest (RFC 8446 section 4.1.3).
var helloRetryRandom = sha256.Sum256([]byte("HelloRetryRequest"))

const (
	tlsHandshakeServerHello = 0x02
	// serverHelloHead is as much of a ServerHello as tells a
	// HelloRetryRequest: message header, legacy_version, random.
	serverHelloHead = 4 + 2 + 32
)

// spliceTLS runs a spliced tunnel whose first flight raw holds a checked
// ClientHello (and any bytes the client sent ahead). Up to the head of the
// server's ServerHello it relays by hand; then it splices, after checking
// the client's second ClientHello if the server asked for one.
func (p *Proxy) spliceTLS(t *tunnel, raw []byte, tgt target, d Decision) {
	defer t.closeBoth()
	hello, ahead := raw[:t.inspected], raw[t.inspected:]
	if !t.forwardFirst(hello) {
		return
	}
	head, hrr, err := readServerHelloHead(&idleReader{t: t, c: t.up})
	if len(head) > 0 {
		if _, werr := t.client.Write(head); werr != nil {
			return
		}
		p.stats.bytesDown.Add(uint64(len(head)))
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return // the tunnel went idle or broke; at EOF the pump passes it on
	}
	down := make(chan struct{})
	go func() {
		defer close(down)
		t.pump(t.client, t.up, &p.stats.bytesDown)
	}()
	ok := false
	if hrr {
		ok = t.checkRetryHello(ahead, tgt, d)
	} else {
		ok = len(ahead) == 0 || t.forwardFirst(ahead)
	}
	if ok {
		t.pump(t.up, t.client, &p.stats.bytesUp)
	}
	<-down
}

// readServerHelloHead reads the server's first records up to the random of
// its first handshake message, and reports whether that message is a
// HelloRetryRequest. It stops early, hrr false, at a record that is not a
// handshake or a message that is not a ServerHello. It reads at most
// serverHelloHead bytes of message, each record giving at least one, and
// leaves the rest of the last record unread. raw holds every byte read.
func readServerHelloHead(r io.Reader) (raw []byte, hrr bool, err error) {
	var msg []byte
	for len(msg) < serverHelloHead {
		var hdr [5]byte
		n, err := io.ReadFull(r, hdr[:])
		raw = append(raw, hdr[:n]...)
		if err != nil {
			return raw, false, err
		}
		size := int(hdr[3])<<8 | int(hdr[4])
		if hdr[0] != tlsRecordHandshake || size == 0 {
			return raw, false, nil
		}
		start := len(raw)
		raw = append(raw, make([]byte, min(size, serverHelloHead-len(msg)))...)
		n, err = io.ReadFull(r, raw[start:])
		raw = raw[:start+n]
		msg = append(msg, raw[start:]...)
		if err != nil {
			return raw, false, err
		}
		if msg[0] != tlsHandshakeServerHello {
			return raw, false, nil
		}
	}
	return raw, bytes.Equal(msg[6:serverHelloHead], helloRetryRandom[:]), nil
}

// maxSkippedEarlyData bounds the early data read before a second
// ClientHello (servers offer 16 KiB or so).
const maxSkippedEarlyData = 256 << 10

// readRetryFlight reads the client's answer to a HelloRetryRequest: the
// second ClientHello, parsed like the first, after at most one
// change_cipher_spec record (TLS 1.3 middlebox compatibility, RFC 8446
// appendix D.4) and any early data the client sent before it saw the
// HelloRetryRequest (application_data records, which the server skips,
// RFC 8446 section 4.2.10), up to maxSkippedEarlyData bytes. raw holds
// every byte read.
func readRetryFlight(r io.Reader) (raw []byte, hello *clientHello, err error) {
	var hdr [5]byte
	ccs, early := false, 0
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return raw, nil, fmt.Errorf("%w: short record header: %w", errBadHello, err)
		}
		raw = append(raw, hdr[:]...)
		n := int(hdr[3])<<8 | int(hdr[4])
		switch {
		case hdr[0] == tlsRecordHandshake:
			return readHelloRecords(r, raw, hdr)
		case hdr[1] != 3:
			return raw, nil, fmt.Errorf("%w: record version %d.%d before the second ClientHello", errBadHello, hdr[1], hdr[2])
		case hdr[0] == tlsRecordCCS && !ccs && n == 1:
			ccs = true
		case hdr[0] == tlsRecordAppData && n > 0 && n <= tlsMaxRecord && early+n <= maxSkippedEarlyData:
			early += n
		default:
			return raw, nil, fmt.Errorf("%w: record of type %d and %d bytes before the second ClientHello", errBadHello, hdr[0], n)
		}
		start := len(raw)
		raw = append(raw, make([]byte, n)...)
		if k, err := io.ReadFull(r, raw[start:]); err != nil {
			return raw[:start+k], nil, fmt.Errorf("%w: short record: %w", errBadHello, err)
		}
		if hdr[0] == tlsRecordCCS && raw[start] != 1 {
			return raw, nil, fmt.Errorf("%w: change_cipher_spec of value %d", errBadHello, raw[start])
		}
	}
}

// checkRetryHello reads the client's second ClientHello (after ahead, the
// bytes it sent with its request to the proxy), within the handshake
// timeout, and refuses it by the rules of the first; else it forwards it.
// It reports whether to splice on.
func (t *tunnel) checkRetryHello(ahead []byte, tgt target, d Decision) bool {
	_ = t.client.SetReadDeadline(time.Now().Add(t.p.handshake))
	src := &flightReader{r: io.MultiReader(bytes.NewReader(ahead), t.client), b: t.p.flights}
	raw, hello, err := readRetryFlight(src)
	src.done()
	_ = t.client.SetReadDeadline(time.Time{})
	switch {
	case errors.Is(err, errInspectBudget):
		t.refuse(d, RuleLimitInspected, t.p.inspectedReason()+" (after a HelloRetryRequest)")
		return false
	case err != nil && isConnError(err):
		t.closeBoth()
		return false
	case err != nil:
		t.refuse(d, RuleBadTLS, err.Error()+" (after a HelloRetryRequest)")
		return false
	}
	if rule, reason := helloRefusal(hello, tgt); rule != "" {
		t.refuse(d, rule, reason+" (the second ClientHello, after a HelloRetryRequest)")
		return false
	}
	t.touch()
	return t.forwardFirst(raw)
}
