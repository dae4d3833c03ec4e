package egress

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agentbox-dev/agentbox/internal/credheaders"
)

// A credential's value goes only into the request headers meant to carry
// credentials, and the response to that request never brings it back in
// the clear: the sandbox writes the request, and many servers repeat parts
// of one (CORS reflects Origin, echo services and some error pages repeat
// every header), so either gap would hand the sandbox the value it must
// never see.

// credentialHeaderShapes are the endings of the header names meant to
// carry a credential: a header whose name (in lower case, _ read as -)
// is one of them or ends in "-" and one of them may get a value
// (Authorization, X-Api-Key, Private-Token, X-Goog-Api-Key, Xi-Api-Key,
// X-Vault-Token, Ocp-Apim-Subscription-Key, X-Client-Secret, …).
var credentialHeaderShapes = []string{
	"authorization", "auth",
	"api-key", "apikey", "access-key", "secret-key", "auth-key", "app-key", "application-key",
	"subscription-key", "license-key", "private-key", "master-key", "admin-key", "account-key", "service-key",
	"token", "secret", "password", "passwd", "credential", "credentials",
}

// credentialHeaderSuffixes count only after a prefix: X-RapidAPI-Key,
// X-Functions-Key, X-Appwrite-Key carry API keys, while a header named Key
// alone is no credential's.
var credentialHeaderSuffixes = []string{"key"}

// isCredentialHeader reports whether the header name k carries
// credentials by its name: it has one of credentialHeaderShapes, is not
// one that servers store and repeat (credheaders.Stored: idempotency keys
// come back in webhook events, pagination tokens in responses, CSRF tokens
// in pages) and is not a Sec- header: those are the browser's own and never
// carry one (Sec-WebSocket-Key is a nonce the server answers with a hash of).
func isCredentialHeader(k string) bool {
	k = credheaders.Normal(k)
	if strings.HasPrefix(k, "sec-") || credheaders.IsStored(k) || credheaders.IsFraming(k) {
		return false
	}
	return slices.ContainsFunc(credentialHeaderShapes, func(s string) bool {
		return k == s || strings.HasSuffix(k, "-"+s)
	}) || slices.ContainsFunc(credentialHeaderSuffixes, func(s string) bool {
		return strings.HasSuffix(k, "-"+s)
	})
}

// mayCarry reports whether c's value may go into header k.
func (c *credential) mayCarry(k string) bool {
	if c.header != "" {
		return c.header == k
	}
	return isCredentialHeader(k)
}

// echoMask holds the values injected into the requests of one upstream
// connection, as they went out, and masks them in every response that
// connection brings after them: each byte of a value becomes '*', so
// lengths, and with them the response's framing, do not change. It keeps
// them for the connection's life, not one exchange's: bytes an upstream
// sends past a response's end (a body to HEAD, more than its
// Content-Length) are read as the next response.
type echoMask struct {
	values [][]byte // wiped by wipe
	owners []*credential
	hits   map[*credential][]string // where each value came back
}

// add remembers v, sent for c. The mask keeps its own copy.
func (m *echoMask) add(c *credential, v []byte) {
	if len(v) == 0 || slices.ContainsFunc(m.values, func(o []byte) bool { return bytes.Equal(o, v) }) {
		return
	}
	m.values = append(m.values, bytes.Clone(v))
	m.owners = append(m.owners, c)
}

func (m *echoMask) active() bool { return m != nil && len(m.values) > 0 }

// wipe clears the remembered values.
func (m *echoMask) wipe() {
	for _, v := range m.values {
		clear(v)
	}
	m.values, m.owners = nil, nil
}

func (m *echoMask) hit(i int, where string) {
	if m.hits == nil {
		m.hits = make(map[*credential][]string)
	}
	c := m.owners[i]
	if !slices.Contains(m.hits[c], where) {
		m.hits[c] = append(m.hits[c], where)
	}
}

// maskInPlace masks every value in b and reports each as found in where.
func (m *echoMask) maskInPlace(b []byte, where string) {
	for i, v := range m.values {
		for from := 0; ; {
			j := bytes.Index(b[from:], v)
			if j < 0 {
				break
			}
			j += from
			for k := j; k < j+len(v); k++ {
				b[k] = '*'
			}
			from = j + len(v)
			m.hit(i, where)
		}
	}
}

// maskString is s with every value masked.
func (m *echoMask) maskString(s, where string) string {
	if !slices.ContainsFunc(m.values, func(v []byte) bool { return strings.Contains(s, string(v)) }) {
		return s
	}
	b := []byte(s)
	m.maskInPlace(b, where)
	return string(b)
}

// header masks the values in h, names and values, as found in where.
// Names are masked whatever their case: the response's reader
// canonicalises them (x-e-value becomes X-E-Value) before the mask sees
// them.
func (m *echoMask) header(h http.Header, where string) {
	for k, vs := range h {
		// Where a value was found names the header masked too: the
		// report goes to the audit log.
		mk := m.maskName(k, where+" name")
		for i, v := range vs {
			vs[i] = m.maskString(v, where+" "+mk)
		}
		if mk != k {
			h[mk] = append(h[mk], vs...)
			delete(h, k)
		}
	}
}

// maskName is the header name k with every value masked, the value's
// letters matched in either case.
func (m *echoMask) maskName(k, where string) string {
	lk := asciiLower([]byte(k))
	var out []byte
	for i, v := range m.values {
		lv := asciiLower(v)
		for from := 0; ; {
			j := bytes.Index(lk[from:], lv)
			if j < 0 {
				break
			}
			j += from
			if out == nil {
				out = []byte(k)
			}
			for n := j; n < j+len(lv); n++ {
				out[n] = '*'
			}
			from = j + len(lv)
			m.hit(i, where)
		}
		clear(lv)
	}
	if out == nil {
		return k
	}
	return string(out)
}

// asciiLower is a copy of b with ASCII letters in lower case; unlike
// bytes.ToLower it never changes the length.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// Buffers of maskReaders: a read's worth and room for a held tail.
const (
	maskRead  = 32 << 10
	maskSlack = 1 << 10
)

var maskBufs = sync.Pool{New: func() any { return new([maskRead + maskSlack]byte) }}

// reader returns r with every value masked as found in where. The caller
// calls wipe when done with it.
func (m *echoMask) reader(r io.Reader, where string) *maskReader {
	longest := 0
	for _, v := range m.values {
		longest = max(longest, len(v))
	}
	mr := &maskReader{src: r, m: m, where: where}
	if longest <= maskSlack {
		mr.pooled = maskBufs.Get().(*[maskRead + maskSlack]byte)
		mr.buf = mr.pooled[:]
	} else {
		mr.buf = make([]byte, maskRead+longest)
	}
	return mr
}

// maskReader masks the values of an echoMask in a stream. It holds back
// only a tail that could begin a value, so a stream that pauses (server-
// sent events) is passed on whole up to the pause.
type maskReader struct {
	src    io.Reader
	m      *echoMask
	where  string
	buf    []byte
	pooled *[maskRead + maskSlack]byte // buf's array, when from maskBufs
	r      int                         // buf[r:ready] is masked and not yet returned
	ready  int
	w      int // buf[ready:w] is held back
	err    error
}

func (mr *maskReader) Read(p []byte) (int, error) {
	for mr.r == mr.ready {
		if mr.err != nil {
			if mr.ready < mr.w { // a tail held at the end cannot complete a value
				mr.ready = mr.w
				break
			}
			return 0, mr.err
		}
		if mr.r > 0 {
			mr.w = copy(mr.buf, mr.buf[mr.r:mr.w])
			mr.r, mr.ready = 0, 0
		}
		n, err := mr.src.Read(mr.buf[mr.w:])
		mr.w += n
		mr.err = err
		mr.m.maskInPlace(mr.buf[mr.ready:mr.w], mr.where)
		mr.ready = mr.w - mr.heldTail(mr.buf[mr.ready:mr.w])
	}
	n := copy(p, mr.buf[mr.r:mr.ready])
	mr.r += n
	return n, nil
}

// heldTail is the length of the longest end of b that begins a value.
func (mr *maskReader) heldTail(b []byte) int {
	held := 0
	for _, v := range mr.m.values {
		for i := max(0, len(b)-len(v)+1); i < len(b)-held; i++ {
			if b[i] == v[0] && bytes.HasPrefix(v, b[i:]) {
				held = len(b) - i
				break
			}
		}
	}
	return held
}

// wipe clears what the reader still holds and gives up its buffer.
func (mr *maskReader) wipe() {
	clear(mr.buf)
	if mr.pooled != nil {
		maskBufs.Put(mr.pooled)
	}
	mr.buf, mr.pooled, mr.r, mr.ready, mr.w = nil, nil, 0, 0, 0
	if mr.err == nil {
		mr.err = errMaskClosed
	}
}

var errMaskClosed = errors.New("egress: read after the end of a masked stream")

// headersText says which headers c's value may go into.
func (c *credential) headersText() string {
	if c.header != "" {
		return c.header
	}
	return "Authorization and headers named for an API key, token or secret (X-Api-Key, Private-Token, …), never Idempotency-Key and the like; " +
		"name the header in the credential to use another"
}

// maskResponse masks the values of mask in resp's status line, header,
// body and trailer. A body compressed although the request asked for none
// cannot be looked into: it is refused, and maskResponse reports false.
func (r *relay) maskResponse(resp *http.Response, mask *echoMask) bool {
	if resp.StatusCode == http.StatusPartialContent {
		// Range and If-Range were not sent: a part unasked could hold a
		// piece of the value, which no mask recognises.
		r.refuse(http.StatusBadGateway, RuleResponseUnchecked,
			"the upstream answered with a part (206) although asked for the whole, so it cannot be checked for the injected credential", "")
		return false
	}
	if coding := hiddenCoding(resp); resp.Body != http.NoBody && coding != "" {
		r.refuse(http.StatusBadGateway, RuleResponseUnchecked,
			fmt.Sprintf("the upstream compressed its response (%s) although asked not to, so it cannot be checked for the injected credential", coding), "")
		return false
	}
	resp.Status = mask.maskString(resp.Status, "the status line")
	mask.header(resp.Header, "header")
	// The names a Trailer header declares are written in the head, before
	// the body (and the trailer's values) is read.
	mask.header(resp.Trailer, "trailer")
	if resp.Body != http.NoBody {
		resp.Body = &maskedBody{maskReader: mask.reader(resp.Body, "the body"), orig: resp.Body, resp: resp}
	}
	return true
}

// hiddenCoding names a coding of resp's body that hides its bytes from a
// mask ("Content-Encoding: gzip"), or returns "". Every coding listed in
// every Content-Encoding field counts, not only the first (identity
// then gzip is still gzip), and so does every transfer coding but
// chunked.
func hiddenCoding(resp *http.Response) string {
	for _, v := range resp.Header.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				return "Content-Encoding: " + c
			}
		}
	}
	for _, c := range resp.TransferEncoding {
		if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "chunked") && !strings.EqualFold(c, "identity") {
			return "Transfer-Encoding: " + c
		}
	}
	return ""
}

// compressedStream names what makes the stream after the 101 response
// resp compressed (a WebSocket extension such as permessage-deflate, or
// HTTP/2's header compression), or returns "".
func compressedStream(resp *http.Response) string {
	for _, v := range resp.Header.Values("Sec-Websocket-Extensions") {
		if v = strings.TrimSpace(v); v != "" {
			return "Sec-WebSocket-Extensions: " + v
		}
	}
	if proto := multiplexedUpgrade(resp); proto != "" {
		return "Upgrade: " + proto
	}
	return ""
}

// multiplexedUpgrade returns the protocol of compressedUpgrades that a 101
// response's Upgrade names, or "".
func multiplexedUpgrade(resp *http.Response) string {
	for _, u := range resp.Header.Values("Upgrade") {
		for tok := range strings.SplitSeq(u, ",") {
			if compressedUpgrade(tok) {
				return strings.TrimSpace(tok)
			}
		}
	}
	return ""
}

// maskedBody is a response body read through a maskReader; at its end it
// masks the trailer, which the response's writer sends next.
type maskedBody struct {
	*maskReader
	orig io.Closer
	resp *http.Response
}

func (b *maskedBody) Read(p []byte) (int, error) {
	n, err := b.maskReader.Read(p)
	if err == io.EOF {
		b.m.header(b.resp.Trailer, "trailer")
	}
	return n, err
}

func (b *maskedBody) Close() error {
	b.wipe()
	return b.orig.Close()
}

// reportEchoes records, per credential, where the response repeated its
// value (masked on the way to the sandbox).
func (r *relay) reportEchoes(mask *echoMask) {
	for c, where := range mask.hits {
		r.p.record(r.decision(false, RuleCredentialLeak,
			fmt.Sprintf("the upstream repeated %s's value in its response (%s); it reached the sandbox masked",
				c.name, strings.Join(where, ", ")), c.name))
	}
	clear(mask.hits) // the next response on the connection reports its own
}
