package egress

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/agentbox-dev/agentbox/vault"
)

// readTunnelRequest reads one request inside a tunnel to tgt, carrying
// scheme ("https" when intercepted, "http" in the clear) and checks it:
// HTTP/1.x, not TRACE, TRACK or CONNECT, and a Host header and request
// target (origin form, or a URI of scheme) that name tgt, so the request
// cannot be routed to another host by a front end shared with tgt. head is the request line and header block as sent. Connection
// errors are returned as they are; anything else is a *requestError.
func readTunnelRequest(br *bufio.Reader, tgt target, scheme string) (req *http.Request, head []byte, err error) {
	block, err := peekHeader(br)
	if err != nil {
		if errors.Is(err, errHeaderTooLarge) {
			return nil, nil, &requestError{status: http.StatusRequestHeaderFieldsTooLarge, rule: RuleBadRequest, msg: err.Error(), err: err}
		}
		return nil, nil, err
	}
	if err := checkHeaderBlock(block); err != nil {
		return nil, nil, err
	}
	head = bytes.Clone(block)
	hosts := headerValues(block, "Host")
	req, err = http.ReadRequest(br)
	if err != nil {
		if isConnError(err) {
			return nil, nil, err
		}
		return nil, nil, &requestError{status: http.StatusBadRequest, rule: RuleBadRequest, msg: "malformed request: " + err.Error(), err: err}
	}
	if req.ProtoMajor != 1 {
		return nil, nil, &requestError{status: http.StatusHTTPVersionNotSupported, rule: RuleBadRequest,
			msg: "only HTTP/1.x is relayed on an intercepted connection"}
	}
	switch req.Method {
	case "TRACE", "TRACK":
		return nil, nil, &requestError{status: http.StatusMethodNotAllowed, rule: RuleMethod,
			msg: req.Method + " is refused: it would echo injected credentials back"}
	case http.MethodConnect:
		return nil, nil, &requestError{status: http.StatusMethodNotAllowed, rule: RuleMethod,
			msg: "CONNECT inside an intercepted tunnel is refused"}
	}
	if req.URL.Host != "" || req.URL.Scheme != "" {
		if req.URL.Scheme != scheme {
			return nil, nil, &requestError{status: http.StatusBadRequest, rule: RuleBadRequest,
				msg: "an absolute request target in this tunnel must be an " + scheme + ":// URI"}
		}
		hosts = append(hosts, req.URL.Host)
	}
	for _, hv := range hosts {
		ht, err := parseHostPort(hv, defaultPort(scheme))
		if err != nil || ht != tgt {
			return nil, nil, &requestError{status: http.StatusForbidden, rule: RuleHostMismatch,
				msg: fmt.Sprintf("Host %q does not name the tunnel's host %s", hv, tgt)}
		}
	}
	// Upstream, the Host names the tunnel's host as the policy judged it
	// (see target.hostHeader; also for HTTP/1.0 without Host), and an
	// absolute target goes in origin form.
	req.Host = tgt.hostHeader(defaultPort(scheme))
	if req.URL.Host != "" {
		req.RequestURI = originForm(req.RequestURI)
	}
	if !validRequestURI(req.RequestURI) {
		return nil, nil, &requestError{status: http.StatusBadRequest, rule: RuleBadRequest, msg: "invalid request target"}
	}
	return req, head, nil
}

// originForm is an absolute request target ("scheme://authority/p?q")
// in origin form ("/p?q"), the client's bytes kept as they are: rebuilt
// from the parsed URL, a path with %2F or a character Go escapes would
// reach the server as another resource. The authority was checked
// against the tunnel's host already.
func originForm(abs string) string {
	_, rest, ok := strings.Cut(abs, "://")
	if !ok {
		return abs
	}
	i := strings.IndexAny(rest, "/?#")
	switch {
	case i < 0:
		return "/"
	case rest[i] == '/':
		return rest[i:]
	case rest[i] == '?':
		return "/" + rest[i:]
	}
	return "/" // a fragment only: never sent
}

// validRequestURI reports whether s can go on a request line as it is.
func validRequestURI(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v can go into a header field as it is:
// no control characters but tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func validSecretValue(b []byte) bool {
	for _, c := range b {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// injection is a credential injected into a request, and where.
type injection struct {
	cred    *credential
	headers []string
}

// credentialError is a credential that could not be injected. Its text
// names the credential, never the value.
type credentialError struct {
	cred *credential
	msg  string
	err  error
}

func (e *credentialError) Error() string {
	if e.err != nil {
		return fmt.Sprintf("credential %s: %s: %v", e.cred.name, e.msg, e.err)
	}
	return fmt.Sprintf("credential %s: %s", e.cred.name, e.msg)
}

func (e *credentialError) Unwrap() error { return e.err }

// headBuilder serialises a request head for the upstream, injecting the
// values of the bound credentials.
type headBuilder struct {
	ctx     context.Context
	bound   []*credential
	b       *wipeBuf
	secrets map[*credential]vault.Secret
	used    []injection
	unused  []injection // placeholders left as they are: headers their values may not go into
	mask    *echoMask
	to      netip.Addr // the address the request goes to
}

// withheldHeaders are the request headers that go upstream only when the
// request carries no value: each would let the response bring an echo of
// the value back in a form the mask cannot see. Accept-Encoding asks for
// compression (identity is sent instead); Range and If-Range ask for
// parts, each holding a piece of the value (the answer comes whole
// instead); Sec-WebSocket-Extensions negotiates permessage-deflate and
// HTTP2-Settings goes with an upgrade to h2c (HPACK), both compressing
// the upgraded stream.
var withheldHeaders = []string{"Accept-Encoding", "Range", "If-Range", "Sec-Websocket-Extensions", "Http2-Settings"}

// compressedUpgrades are the upgrade protocols whose streams are
// compressed (HTTP/2's HPACK, SPDY's zlib), where the mask could not see
// an echo, and multiplexed: each stream names its own host (:authority),
// which the relay, checking one request's Host at a time, never sees. No
// relayed request asks for them.
var compressedUpgrades = []string{"h2c", "h2", "http/2", "spdy"}

// checkedUpgrade is the Upgrade header u without the protocols of
// compressedUpgrades ("" if none is left).
func checkedUpgrade(u string) string {
	var keep []string
	for tok := range strings.SplitSeq(u, ",") {
		if tok = strings.TrimSpace(tok); tok != "" && !compressedUpgrade(tok) {
			keep = append(keep, tok)
		}
	}
	return strings.Join(keep, ", ")
}

// compressedUpgrade reports whether the upgrade protocol tok (name or
// name/version) is one of compressedUpgrades.
func compressedUpgrade(tok string) bool {
	tok = strings.ToLower(strings.TrimSpace(tok))
	name, _, _ := strings.Cut(tok, "/")
	return slices.ContainsFunc(compressedUpgrades, func(c string) bool {
		return name == c || tok == c || strings.HasPrefix(tok, c+".")
	})
}

// buildHead serialises req's head (hop-by-hop headers already removed)
// with canonical framing, replacing the placeholders of bound in the
// header values each may go into (see credential.mayCarry). The buffer
// holds values: the caller writes it and wipes it; mask gets a copy of
// each value as it went out, for the response. The fetched values are
// wiped before buildHead returns. A request that carries a value, or that
// follows one on the connection, asks for an uncompressed, whole response,
// so that mask can see into it (see withheldHeaders); no request asks for a compressed, multiplexed upgrade
// (see compressedUpgrades). The upgrade it asks for is in the result.
func buildHead(ctx context.Context, req *http.Request, bound []*credential, upgrade string, mask *echoMask, to netip.Addr) (*builtHead, error) {
	hb := &headBuilder{ctx: ctx, bound: bound, b: newWipeBuf(1024), mask: mask, to: to}
	defer hb.wipeSecrets()
	b := hb.b
	b.str(req.Method)
	b.str(" ")
	b.str(req.RequestURI)
	b.str(" HTTP/1.1\r\nHost: ")
	b.str(req.Host)
	b.str("\r\n")
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		switch k {
		case "Host", "Content-Length", "Transfer-Encoding", "Connection", "Upgrade":
			continue
		}
		if !slices.Contains(withheldHeaders, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if err := hb.fields(req.Header, keys); err != nil {
		return nil, err
	}
	upgrade = checkedUpgrade(upgrade)
	if len(hb.used) > 0 || mask.readable() {
		b.str("Accept-Encoding: identity\r\n")
	} else if err := hb.fields(req.Header, withheldHeaders); err != nil {
		return nil, err
	}
	switch {
	case req.ContentLength > 0 || req.ContentLength == 0 && req.Header.Get("Content-Length") != "":
		fmt.Fprintf(b, "Content-Length: %d\r\n", req.ContentLength)
	case req.ContentLength < 0:
		b.str("Transfer-Encoding: chunked\r\n")
	}
	switch {
	case upgrade != "" && validHeaderValue(upgrade):
		b.str("Connection: Upgrade\r\nUpgrade: ")
		b.str(upgrade)
		b.str("\r\n")
	case req.Close:
		b.str("Connection: close\r\n")
	}
	b.str("\r\n")
	if !validHeaderValue(upgrade) {
		upgrade = ""
	}
	return &builtHead{wipeBuf: b, used: hb.used, unused: hb.unused, upgrade: upgrade}, nil
}

// builtHead is a serialised request head and what went into it.
type builtHead struct {
	*wipeBuf
	used, unused []injection
	upgrade      string // the Upgrade asked for, or ""
}

// fields writes the header fields keys of h, wiping the buffer on error.
func (hb *headBuilder) fields(h http.Header, keys []string) error {
	b := hb.b
	for _, k := range keys {
		for _, v := range h[k] {
			v = strings.Trim(v, " \t") // what a folded line may leave
			if !validHeaderName(k) || !validHeaderValue(v) {
				b.wipe()
				return fmt.Errorf("invalid header %q", k)
			}
			b.str(k)
			b.str(": ")
			if err := hb.value(k, v); err != nil {
				b.wipe()
				return err
			}
			b.str("\r\n")
		}
	}
	return nil
}

// Write lets fmt write into a wipeBuf.
func (w *wipeBuf) Write(p []byte) (int, error) {
	w.write(p)
	return len(p), nil
}

// value writes the header value v of header k, with the placeholders of
// the credentials that may go into k replaced by their values, directly or
// inside Basic credentials.
func (hb *headBuilder) value(k, v string) error {
	var eligible []*credential
	for _, c := range hb.bound {
		if c.mayCarry(k) {
			eligible = append(eligible, c)
		} else if strings.Contains(v, string(c.ph)) {
			hb.unused = noteIn(hb.unused, c, k)
		}
	}
	if len(eligible) == 0 {
		hb.b.str(v)
		return nil
	}
	rest, found := v, false
	for {
		i, c := firstPlaceholder(rest, eligible)
		if c == nil {
			break
		}
		sec, err := hb.secret(c, true)
		if err != nil {
			return err
		}
		if err := hb.remember(c, sec); err != nil {
			return err
		}
		hb.b.str(rest[:i])
		hb.b.write(sec)
		rest = rest[i+len(c.ph):]
		hb.used = noteIn(hb.used, c, k)
		found = true
	}
	if !found {
		if ok, err := hb.basic(k, v, eligible); ok || err != nil {
			return err
		}
	}
	hb.b.str(rest)
	return nil
}

// basic writes v, Basic credentials, with placeholders replaced inside the
// decoded text; it reports false (writing nothing) when v holds none.
func (hb *headBuilder) basic(k, v string, eligible []*credential) (bool, error) {
	dec := decodeBasic(v)
	if dec == nil {
		return false, nil
	}
	defer clear(dec)
	plain := newWipeBuf(len(dec) + 64)
	defer plain.wipe()
	rest, who := dec, (*credential)(nil)
	for {
		i, c := firstPlaceholder(string(rest), eligible)
		if c == nil {
			break
		}
		sec, err := hb.secret(c, false)
		if err != nil {
			return false, err
		}
		if err := hb.remember(c, sec); err != nil {
			return false, err
		}
		plain.write(rest[:i])
		plain.write(sec)
		rest = rest[i+len(c.ph):]
		hb.used = noteIn(hb.used, c, k+" (Basic)")
		who = c
	}
	if who == nil {
		return false, nil
	}
	plain.write(rest)
	enc := newWipeBuf(base64.StdEncoding.EncodedLen(len(plain.b)))
	defer enc.wipe()
	enc.b = enc.b[:cap(enc.b)]
	base64.StdEncoding.Encode(enc.b, plain.b)
	hb.mask.add(who, enc.b) // echoed whole, the encoding hides the value from a search for it
	hb.b.str("Basic ")
	hb.b.write(enc.b)
	return true, nil
}

// firstPlaceholder returns the earliest placeholder of creds in s.
func firstPlaceholder(s string, creds []*credential) (int, *credential) {
	best, bc := -1, (*credential)(nil)
	for _, c := range creds {
		if i := strings.Index(s, string(c.ph)); i >= 0 && (best < 0 || i < best) {
			best, bc = i, c
		}
	}
	return best, bc
}

// headerOWS is the optional whitespace HTTP parsers drop from both ends
// of a field value (RFC 9110 §5.5).
const headerOWS = " \t"

// SentForm is a credential's value as the proxy sends it and the upstream
// reads it: without the blanks at its ends, which a parser drops when the
// value ends the field, and which are no part of a token anywhere else. A
// value stored with a stray blank (a pasted token) is sent, and masked,
// as the upstream will repeat it. It is a subslice of v: no copy of the
// secret is made.
func SentForm(v []byte) []byte { return bytes.Trim(v, headerOWS) }

// secret fetches c's value once per request and returns its SentForm.
// inHeader requires it to be a valid header value (a value with CR or LF
// would split the header).
func (hb *headBuilder) secret(c *credential, inHeader bool) ([]byte, error) {
	s, ok := hb.secrets[c]
	if !ok {
		var err error
		s, err = c.value(hb.ctx)
		if err != nil {
			return nil, &credentialError{cred: c, msg: "fetching the value failed", err: err}
		}
		if hb.secrets == nil {
			hb.secrets = make(map[*credential]vault.Secret)
		}
		hb.secrets[c] = s
	}
	if s.Len() == 0 {
		return nil, &credentialError{cred: c, msg: "the value is empty"}
	}
	if inHeader && !validSecretValue(s.Bytes()) {
		return nil, &credentialError{cred: c, msg: "the value holds control characters and cannot go into a header"}
	}
	sent := SentForm(s.Bytes())
	if len(sent) == 0 {
		return nil, &credentialError{cred: c, msg: "the value is only spaces and tabs"}
	}
	return sent, nil
}

// remember records that c's value goes out, and gives the mask sent, the
// value as it goes, and the value as stored when that differs (blanks at
// its ends), should an upstream repeat it as the proxy wrote it. A value
// whose going out cannot be recorded (Injections.Record) does not go: an
// echo of it would reach another process's command unmasked.
func (hb *headBuilder) remember(c *credential, sent []byte) error {
	if err := c.markInjectedTo(hb.to); err != nil {
		return &credentialError{cred: c, msg: "recording that the value goes out failed", err: err}
	}
	hb.mask.add(c, sent)
	if s, ok := hb.secrets[c]; ok && len(s.Bytes()) != len(sent) {
		hb.mask.add(c, s.Bytes())
	}
	return nil
}

// noteIn records in list that c's placeholder was in header.
func noteIn(list []injection, c *credential, header string) []injection {
	for i := range list {
		if list[i].cred == c {
			if !slices.Contains(list[i].headers, header) {
				list[i].headers = append(list[i].headers, header)
			}
			return list
		}
	}
	return append(list, injection{cred: c, headers: []string{header}})
}

func (hb *headBuilder) wipeSecrets() {
	for _, s := range hb.secrets {
		s.Wipe()
	}
}

// defaultPort is the port a Host without one means for scheme.
func defaultPort(scheme string) int {
	if scheme == "http" {
		return 80
	}
	return 443
}
