package egress

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/cryptobyte"
)

const (
	tlsRecordCCS         = 0x14
	tlsRecordAlert       = 0x15
	tlsRecordHandshake   = 0x16
	tlsRecordAppData     = 0x17
	tlsRecordHeartbeat   = 0x18
	tlsHandshakeHello    = 0x01
	sslv2HeaderBit       = 0x80 // set in the first byte of a two-byte SSLv2 record header
	sslv2ClientHello     = 0x01 // SSLv2 message type CLIENT-HELLO
	tlsExtServerName     = 0x0000
	tlsExtECH            = 0xfe0d // encrypted_client_hello (RFC 9849)
	tlsExtESNI           = 0xffce // encrypted_server_name, ECH's draft predecessor
	tlsSNIHostName       = 0x00
	tlsMaxRecord         = 16384 + 2048 // TLSCiphertext limit; plaintext hellos are smaller
	tlsMaxHelloLen       = 1 << 16
	tlsAlertAccessDenied = 49
)

// errBadHello is wrapped by every ClientHello parse error.
var errBadHello = errors.New("malformed TLS ClientHello")

// clientHello is what the proxy needs from a ClientHello.
type clientHello struct {
	serverName string // the host_name of the server_name extension, as sent
	hasSNI     bool
	// encrypted says the hello carries an encrypted inner ClientHello
	// (ECH, or draft ESNI), whose server name the proxy cannot read.
	encrypted bool
	// sslv2 says the hello came in the SSLv2-compatible format (RFC 5246
	// appendix E.2), which has no extensions and so never names a server.
	sslv2 bool
}

// readFirstFlight reads the first bytes a client sends into a tunnel. If
// they start a TLS handshake record, it reads the whole ClientHello (which
// may span several records) and parses it; if they start an SSLv2-format
// ClientHello, it returns a hello without SNI after its first three bytes;
// if they start a TLS record of another type, it returns errBadHello once
// the record's header is read (readStrayRecord); if they start a PROXY protocol header, it returns errProxyHeader;
// otherwise it returns after the first bytes (up to a PROXY signature's
// length) with hello == nil. raw holds every byte read, to be forwarded.
func readFirstFlight(r io.Reader) (raw []byte, hello *clientHello, err error) {
	var b [1]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return nil, nil, err
	}
	raw = append(raw, b[0])
	switch {
	case b[0]&sslv2HeaderBit != 0:
		return readSSLv2Hello(r, raw)
	case b[0] == tlsRecordHandshake:
	case strayRecordTypes[b[0]]:
		return readStrayRecord(r, raw)
	default:
		return readProxyHeader(r, raw)
	}
	var hdr [5]byte
	hdr[0] = b[0]
	if _, err := io.ReadFull(r, hdr[1:]); err != nil {
		return raw, nil, fmt.Errorf("%w: short record header: %w", errBadHello, err)
	}
	return readHelloRecords(r, append(raw, hdr[1:]...), hdr)
}

// strayRecordTypes are the TLS record types other than handshake. Some TLS
// servers skip such a record before the ClientHello (Go's crypto/tls drops
// a warning alert), so one would carry a fronted SNI past the check.
var strayRecordTypes = map[byte]bool{
	tlsRecordCCS: true, tlsRecordAlert: true, tlsRecordAppData: true, tlsRecordHeartbeat: true,
}

// readStrayRecord reads on from raw, a first byte that is a TLS record type
// other than handshake, and refuses it once a whole record header is read:
// a record that is not a handshake cannot open a TLS connection. The
// version bytes prove nothing (Go reads any record version below 0x1000
// before the hello, Java's SSLEngine any from 0x0300 up, so between them
// every value), nor does the length. Few protocols that are not TLS start
// with these control bytes (a MongoDB message whose length's low byte is
// one of them does, and is refused too: the README says so). A flight that
// ends before a whole header is no record: it is returned as not TLS.
func readStrayRecord(r io.Reader, raw []byte) ([]byte, *clientHello, error) {
	var hdr [4]byte
	n, err := io.ReadFull(r, hdr[:])
	raw = append(raw, hdr[:n]...)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return raw, nil, nil
	case err != nil:
		return raw, nil, err
	}
	return raw, nil, fmt.Errorf("%w: TLS record of type %d (version %d.%d) before the ClientHello",
		errBadHello, raw[0], hdr[0], hdr[1])
}

// readHelloRecords reads a ClientHello from handshake records, the header
// of the first (hdr) already read and in raw, and parses it. raw holds
// every byte read. The hello must end its record: bytes after it there (a
// second ClientHello packed behind the first, or its start) would go
// upstream unparsed, and a server that reads on in the record (BoringSSL,
// Java, a front end routing by SNI) could route by a name never checked.
// No client sends anything after the ClientHello in its record.
func readHelloRecords(r io.Reader, raw []byte, hdr [5]byte) ([]byte, *clientHello, error) {
	var msg []byte // handshake message bytes gathered from records
	for {
		if hdr[0] != tlsRecordHandshake {
			return raw, nil, fmt.Errorf("%w: record type %d inside the hello", errBadHello, hdr[0])
		}
		if hdr[1] != 3 {
			return raw, nil, fmt.Errorf("%w: record version %d.%d", errBadHello, hdr[1], hdr[2])
		}
		n := int(hdr[3])<<8 | int(hdr[4])
		if n == 0 || n > tlsMaxRecord {
			return raw, nil, fmt.Errorf("%w: record length %d", errBadHello, n)
		}
		start := len(raw)
		raw = append(raw, make([]byte, n)...)
		if k, err := io.ReadFull(r, raw[start:]); err != nil {
			return raw[:start+k], nil, fmt.Errorf("%w: short record: %w", errBadHello, err)
		}
		msg = append(msg, raw[start:]...)
		if len(msg) >= 4 {
			if msg[0] != tlsHandshakeHello {
				return raw, nil, fmt.Errorf("%w: first handshake message is type %d", errBadHello, msg[0])
			}
			want := 4 + (int(msg[1])<<16 | int(msg[2])<<8 | int(msg[3]))
			if want > tlsMaxHelloLen {
				return raw, nil, fmt.Errorf("%w: ClientHello of %d bytes", errBadHello, want)
			}
			if len(msg) > want {
				return raw, nil, fmt.Errorf("%w: %d bytes after the ClientHello in the record that ends it", errBadHello, len(msg)-want)
			}
			if len(msg) == want {
				h, err := parseClientHello(msg[4:want])
				return raw, h, err
			}
		}
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return raw, nil, fmt.Errorf("%w: short record header: %w", errBadHello, err)
		}
		raw = append(raw, hdr[:]...)
	}
}

// readSSLv2Hello reads on from raw, a first byte with the top bit set, to
// tell an SSLv2-format ClientHello: a two-byte record header whose first
// bit is set, then message type CLIENT-HELLO. OpenSSL, BoringSSL, Java and
// NSS servers still accept one (OpenSSL negotiates TLS 1.0-1.2 from it),
// and it cannot carry a server name, so it is returned as a hello without
// SNI: a front end would pick the host from the encrypted request. Any
// version is taken, as servers clamp a version above theirs. Other bytes
// are returned as not TLS; a flight that ends first cannot be a hello.
func readSSLv2Hello(r io.Reader, raw []byte) ([]byte, *clientHello, error) {
	var b [2]byte
	n, err := io.ReadFull(r, b[:])
	raw = append(raw, b[:n]...)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return raw, nil, nil
	case err != nil:
		return raw, nil, err
	case b[1] != sslv2ClientHello:
		return raw, nil, nil
	}
	return raw, &clientHello{sslv2: true}, nil
}

// parseClientHello parses the body of a ClientHello handshake message.
func parseClientHello(body []byte) (*clientHello, error) {
	s := cryptobyte.String(body)
	var (
		version     uint16
		random      []byte
		sessionID   cryptobyte.String
		suites      cryptobyte.String
		compression cryptobyte.String
	)
	if !s.ReadUint16(&version) || !s.ReadBytes(&random, 32) ||
		!s.ReadUint8LengthPrefixed(&sessionID) || len(sessionID) > 32 ||
		!s.ReadUint16LengthPrefixed(&suites) || len(suites) < 2 || len(suites)%2 != 0 ||
		!s.ReadUint8LengthPrefixed(&compression) || len(compression) < 1 {
		return nil, fmt.Errorf("%w: bad fixed fields", errBadHello)
	}
	h := &clientHello{}
	if s.Empty() {
		return h, nil // no extensions at all
	}
	var exts cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		return nil, fmt.Errorf("%w: bad extensions block", errBadHello)
	}
	seen := make(map[uint16]bool)
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return nil, fmt.Errorf("%w: bad extension", errBadHello)
		}
		if seen[typ] {
			return nil, fmt.Errorf("%w: duplicate extension %d", errBadHello, typ)
		}
		seen[typ] = true
		if typ == tlsExtECH || typ == tlsExtESNI {
			h.encrypted = true
		}
		if typ != tlsExtServerName {
			continue
		}
		name, err := parseServerName(data)
		if err != nil {
			return nil, err
		}
		h.serverName, h.hasSNI = name, true
	}
	return h, nil
}

// parseServerName parses the server_name extension: exactly one host_name.
func parseServerName(data cryptobyte.String) (string, error) {
	var list cryptobyte.String
	if !data.ReadUint16LengthPrefixed(&list) || !data.Empty() || list.Empty() {
		return "", fmt.Errorf("%w: bad server_name extension", errBadHello)
	}
	var name string
	found := false
	for !list.Empty() {
		var typ uint8
		var v cryptobyte.String
		if !list.ReadUint8(&typ) || !list.ReadUint16LengthPrefixed(&v) {
			return "", fmt.Errorf("%w: bad server_name entry", errBadHello)
		}
		if typ != tlsSNIHostName {
			continue
		}
		if found {
			return "", fmt.Errorf("%w: more than one host_name", errBadHello)
		}
		if len(v) == 0 {
			return "", fmt.Errorf("%w: empty host_name", errBadHello)
		}
		name, found = string(v), true
	}
	if !found {
		return "", fmt.Errorf("%w: server_name without a host_name", errBadHello)
	}
	return name, nil
}

// sniMatches reports whether the SNI names the tunnel's target, compared
// case-insensitively with a trailing dot ignored. An SNI can only name a
// DNS name, so it never matches an IP-literal target.
func sniMatches(sni string, t target) bool {
	if t.isIP() {
		return false
	}
	n := strings.ToLower(strings.TrimSuffix(sni, "."))
	return n == t.name
}

// tlsAlert is a fatal access_denied alert, sent before closing a fronted
// tunnel so the client reports a clear handshake failure.
var tlsAlert = []byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, tlsAlertAccessDenied}
