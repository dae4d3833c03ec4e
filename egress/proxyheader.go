package egress

import (
	"errors"
	"fmt"
	"io"
)

// proxySignatures start a PROXY protocol header (HAProxy's specification:
// version 1 is text, version 2 binary). A front end that takes the
// protocol (Envoy, HAProxy, nginx, Go's proxyproto, many of them also
// without one) reads the client address the header names and then the TLS
// ClientHello after it, whose server name no check here would see: the
// header hides a fronted hello, and it forges the address the upstream
// logs. No client needs to send one into a tunnel.
var proxySignatures = []string{"PROXY ", "\r\n\r\n\x00\r\nQUIT\n"}

// errProxyHeader is returned for a first flight that starts with a PROXY
// protocol header.
var errProxyHeader = errors.New("PROXY protocol header")

// readProxyHeader reads on from raw, a first byte that is neither a TLS
// record's nor an SSLv2 header's, while the bytes match the start of a
// PROXY protocol signature: a whole signature is errProxyHeader. It stops
// at the first byte that matches none, so other protocols lose no time,
// and returns what it read, not TLS. A flight that ends first is no header.
func readProxyHeader(r io.Reader, raw []byte) ([]byte, *clientHello, error) {
	var b [1]byte
	for {
		sig, whole := matchProxySignature(raw)
		switch {
		case whole:
			return raw, nil, fmt.Errorf("%w (%q)", errProxyHeader, sig)
		case sig == "":
			return raw, nil, nil
		}
		if _, err := io.ReadFull(r, b[:]); errors.Is(err, io.EOF) {
			return raw, nil, nil
		} else if err != nil {
			return raw, nil, err
		}
		raw = append(raw, b[0])
	}
}

// matchProxySignature returns the signature that raw starts, if any, and
// whether raw holds all of it.
func matchProxySignature(raw []byte) (sig string, whole bool) {
	for _, s := range proxySignatures {
		n := min(len(raw), len(s))
		if string(raw[:n]) == s[:n] {
			return s, len(raw) >= len(s)
		}
	}
	return "", false
}
