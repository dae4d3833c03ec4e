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
	"time"

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
	values [][]byte      // wiped by wipe
	owners []*credential // owners[i] sent values[i] first
	// held are the credentials whose values the mask holds, each once: a
	// value two credentials share is held once, for the first, and the
	// second must count as held too, or a lateMask would take it up
	// again at every read (red-team round 58).
	held []*credential
	hits map[*credential][]string // where each value came back
	// watch says that credentials are bound to the connection's host:
	// one may go out on another connection at any time, so every request
	// asks for responses the mask can read, before any value is added
	// (see buildHead, lateMask).
	watch bool
	// mu guards values, owners, held and hits: a lateMask adds values while a
	// mask reader below it masks in its reading goroutine (red-team round
	// 56).
	mu sync.Mutex
}

// add remembers v, sent for c, and that c is held (even where v is empty
// or held already). The mask keeps its own copy.
func (m *echoMask) add(c *credential, v []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.held, c) {
		m.held = append(m.held, c)
	}
	if len(v) == 0 || slices.ContainsFunc(m.values, func(o []byte) bool { return bytes.Equal(o, v) }) {
		return
	}
	m.values = append(m.values, bytes.Clone(v))
	m.owners = append(m.owners, c)
}

func (m *echoMask) active() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.values) > 0
}

// readable reports whether responses must come in a form the mask can
// read: it holds values, or may come to.
func (m *echoMask) readable() bool { return m.active() || m != nil && m.watch }

// has reports whether the mask holds c's values.
func (m *echoMask) has(c *credential) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Contains(m.held, c)
}

// longestForm is the most bytes a form of a value may take (formSpan).
func (m *echoMask) longestForm() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	longest := 0
	for _, v := range m.values {
		longest = max(longest, formSpan(len(v)))
	}
	return longest
}

// takeHits returns where each value came back since the last call.
func (m *echoMask) takeHits() map[*credential][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.hits
	m.hits = nil
	return h
}

// wipe clears the remembered values.
func (m *echoMask) wipe() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, v := range m.values {
		clear(v)
	}
	m.values, m.owners, m.held = nil, nil, nil
}

// hit records that value i came back in where (m.mu held).
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
func (m *echoMask) maskInPlace(b []byte, where string) { m.maskAfter(b, 0, 0, where) }

// maskAfter masks every value in b as maskInPlace does, b[:sent] having
// gone out already: a value that begins there is reported as reaching the
// sandbox with its start unmasked. The last hold bytes of b are held back
// for more to come: a value found ending at b's end in a byte that begins
// an escape (&, \, %) is left to be found again with what follows, which
// may be the rest of a longer form of it (&amp;): masked now, that rest
// would come through and tell its last byte (red-team round 52).
func (m *echoMask) maskAfter(b []byte, sent, hold int, where string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	// Every value is found in the bytes as they came before any is masked:
	// masked one after another, a value inside another (an ID and the
	// ID:secret pair it begins) would leave the longer one's rest
	// unmatched, and in the clear (red-team round 56).
	type found struct{ i, j, end int }
	var all []found
	for i, v := range m.values {
		newFormMatcher(v, false).each(b, func(j, end int) {
			if hold > 0 && end == len(b) && j >= len(b)-hold && escapeStart(b[end-1]) {
				return
			}
			all = append(all, found{i, j, end})
		})
	}
	for _, f := range all {
		for k := f.j; k < f.end; k++ {
			b[k] = '*'
		}
		if f.j < sent {
			m.hit(f.i, where+" (its start unmasked: the upstream paused within it)")
		} else {
			m.hit(f.i, where)
		}
	}
}

// escapeStart reports whether c begins an escape a longer form may
// continue.
func escapeStart(c byte) bool { return c == '&' || c == '\\' || c == '%' }

// maskString is s with every value masked.
func (m *echoMask) maskString(s, where string) string {
	b := []byte(s)
	m.maskInPlace(b, where)
	if string(b) == s {
		return s
	}
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
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []byte
	for i, v := range m.values {
		newFormMatcher(v, true).each([]byte(k), func(j, end int) {
			if out == nil {
				out = []byte(k)
			}
			for n := j; n < end; n++ {
				out[n] = '*'
			}
			m.hit(i, where)
		})
	}
	if out == nil {
		return k
	}
	return string(out)
}

// Buffers of maskReaders: a read's worth and room for a held tail.
const (
	maskRead  = 32 << 10
	maskSlack = 1 << 10
)

// maskQuiet is how long a maskReader keeps the end of a stream held back
// while the upstream sends nothing more (see maskReader).
const maskQuiet = 250 * time.Millisecond

var maskBufs = sync.Pool{New: func() any { return new([maskRead + maskSlack]byte) }}

// reader returns r with every value masked as found in where. The caller
// calls wipe when done with it.
func (m *echoMask) reader(r io.Reader, where string) *maskReader {
	longest := m.longestForm()
	mr := &maskReader{src: r, m: m, where: where, keep: max(0, longest-1), quiet: maskQuiet}
	if longest <= maskSlack {
		mr.pooled = maskBufs.Get().(*[maskRead + maskSlack]byte)
		mr.buf = mr.pooled[:]
	} else {
		mr.buf = make([]byte, maskRead+longest)
	}
	return mr
}

// maskReader masks the values of an echoMask in a stream.
//
// A value can arrive split across reads, so the reader holds back the
// last keep bytes it has read (one fewer than the longest form of a value
// may have: formSpan) until
// more arrive or the stream ends, then masks and releases them. How much
// it holds never depends on what the bytes are: holding back only an end
// that could begin a value told the sandbox, by when the echo of its own
// bytes came back, whether they began the value, and so gave it the value
// a character at a time.
//
// A stream that pauses (server-sent events, a WebSocket) would keep the
// last bytes before each pause until the upstream wrote again, so the held
// bytes are also released, as they are, once the upstream has sent nothing
// for quiet (maskQuiet): the end of every burst reaches the sandbox up to
// that much later than it would without the mask, whatever it holds. The
// cost of that release, the same for all bytes and so telling the sandbox
// nothing, is that an upstream pausing longer than quiet in the middle of
// writing a value lets the value's start through unmasked; its rest is
// masked, and the echo is reported as having come back with its start
// unmasked. A stream that ends (a response with a length, or chunked) is
// released whole at its end, without waiting.
type maskReader struct {
	src    io.Reader
	m      *echoMask
	where  string
	keep   int           // bytes held back at the end of what was read
	quiet  time.Duration // how long they are held while src sends nothing
	buf    []byte
	pooled *[maskRead + maskSlack]byte // buf's array, when from maskBufs
	r      int                         // buf[r:ready] is masked and not yet returned
	ready  int
	w      int // buf[ready:w] is held back; the end of buf[:r], returned, is kept to find values across a release
	err    error

	pending chan srcRead // a read of src into buf[w:] still going on, or nil
	reads   chan srcRead
	timer   *time.Timer
}

// srcRead is the result of one read of a maskReader's src.
type srcRead struct {
	n   int
	err error
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
		mr.fill()
	}
	n := copy(p, mr.buf[mr.r:mr.ready])
	mr.r += n
	return n, nil
}

// fill reads more of src and masks it; or, once src has sent nothing for
// quiet while bytes are held, releases them. Everything ready has been
// returned.
func (mr *maskReader) fill() {
	if mr.pending == nil {
		mr.compact()
		if mr.ready == mr.w { // nothing held: no release to wait for
			n, err := mr.src.Read(mr.buf[mr.w:])
			mr.got(n, err)
			return
		}
		if mr.reads == nil {
			mr.reads = make(chan srcRead, 1)
			mr.timer = time.NewTimer(mr.quiet)
		} else {
			mr.timer.Reset(mr.quiet)
		}
		src, b, reads := mr.src, mr.buf[mr.w:], mr.reads
		go func() {
			n, err := src.Read(b)
			reads <- srcRead{n, err}
		}()
		mr.pending = reads
	}
	var res srcRead
	if mr.ready == mr.w {
		res = <-mr.pending
	} else {
		select {
		case res = <-mr.pending:
			mr.timer.Stop()
		case <-mr.timer.C:
			// What was held is released as it is, but for a value
			// left for more to come (maskAfter).
			mr.m.maskAfter(mr.buf[mr.ready:mr.w], 0, 0, mr.where)
			mr.ready = mr.w
			return
		}
	}
	mr.pending = nil
	mr.got(res.n, res.err)
}

// got masks the n bytes just read into buf[w:] and moves ready on to all
// but the last keep bytes (all of them at the stream's end).
func (mr *maskReader) got(n int, err error) {
	// A value that ends in the new bytes begins at lo or later.
	lo := max(0, mr.w-mr.keep)
	mr.w += n
	mr.err = err
	hold := mr.keep
	if err != nil {
		hold = 0
	}
	mr.m.maskAfter(mr.buf[lo:mr.w], max(0, mr.r-lo), hold, mr.where)
	mr.ready = max(mr.ready, mr.w-mr.keep)
	if err != nil {
		mr.ready = mr.w
	}
}

// compact moves what is held, and the last keep bytes before it, to the
// start of buf.
func (mr *maskReader) compact() {
	if s := min(mr.r, max(0, mr.w-mr.keep)); s > 0 {
		mr.w = copy(mr.buf, mr.buf[s:mr.w])
		mr.r -= s
		mr.ready -= s
	}
}

// wipe clears what the reader still holds and gives up its buffer: at
// once, or when a read of src still going on ends (closing src ends it).
func (mr *maskReader) wipe() {
	buf, pooled := mr.buf, mr.pooled
	done := func() {
		clear(buf)
		if pooled != nil {
			maskBufs.Put(pooled)
		}
	}
	if mr.pending != nil {
		go func(pending chan srcRead) {
			<-pending
			done()
		}(mr.pending)
	} else {
		done()
	}
	if mr.timer != nil {
		mr.timer.Stop()
	}
	mr.buf, mr.pooled, mr.pending, mr.r, mr.ready, mr.w = nil, nil, nil, 0, 0, 0
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
	if why := maskHead(resp, mask); why != "" {
		r.refuse(http.StatusBadGateway, RuleResponseUnchecked, why, "")
		return false
	}
	return true
}

// maskHead masks resp's status line and header, and makes its body and
// trailer read through mask; or, for a response the mask cannot read,
// returns why.
func maskHead(resp *http.Response, mask *echoMask) string {
	if resp.StatusCode == http.StatusPartialContent {
		// Range and If-Range were not sent: a part unasked could hold a
		// piece of the value, which no mask recognises.
		return "the upstream answered with a part (206) although asked for the whole, so it cannot be checked for the injected credential"
	}
	if coding := hiddenCoding(resp); resp.Body != http.NoBody && coding != "" {
		return fmt.Sprintf("the upstream compressed its response (%s) although asked not to, so it cannot be checked for the injected credential", coding)
	}
	resp.Status = mask.maskString(resp.Status, "the status line")
	mask.header(resp.Header, "header")
	// The names a Trailer header declares are written in the head, before
	// the body (and the trailer's values) is read.
	mask.header(resp.Trailer, "trailer")
	if resp.Body != http.NoBody {
		resp.Body = &maskedBody{maskReader: mask.reader(resp.Body, "the body"), orig: resp.Body, resp: resp}
	}
	return ""
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
				return quoteToken("Content-Encoding", c, knownCodings)
			}
		}
	}
	for _, c := range resp.TransferEncoding {
		if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "chunked") && !strings.EqualFold(c, "identity") {
			return quoteToken("Transfer-Encoding", c, knownCodings)
		}
	}
	return ""
}

// knownCodings are the registered content and transfer codings, the ones
// a refusal may name.
var knownCodings = []string{"aes128gcm", "br", "compress", "dcb", "dcz", "deflate", "exi", "gzip", "pack200-gzip", "x-compress", "x-gzip", "zstd"}

// knownExtensions are the WebSocket extensions a refusal may name.
var knownExtensions = []string{"permessage-deflate", "x-webkit-deflate-frame"}

// quoteToken says which field of an upstream's response a refusal is
// about, with the token found there only when it is one of known. The
// rest of a field is the upstream's own text, which may be the injected
// value itself (an upstream that repeats a request header into
// Content-Encoding), and a refusal's reason goes back to the sandbox and
// into the decision log, where no mask reaches.
func quoteToken(field, token string, known []string) string {
	if slices.ContainsFunc(known, func(k string) bool { return strings.EqualFold(k, token) }) {
		return field + ": " + token
	}
	return field + ": a token it does not know, withheld"
}

// compressedStream names what makes the stream after the 101 response
// resp compressed (a WebSocket extension such as permessage-deflate, or
// HTTP/2's header compression), or returns "".
func compressedStream(resp *http.Response) string {
	for _, v := range resp.Header.Values("Sec-Websocket-Extensions") {
		if v = strings.TrimSpace(v); v != "" {
			name, _, _ := strings.Cut(v, ";")
			name, _, _ = strings.Cut(name, ",")
			return quoteToken("Sec-WebSocket-Extensions", strings.TrimSpace(name), knownExtensions)
		}
	}
	return multiplexedUpgrade(resp)
}

// multiplexedUpgrade names the protocol of compressedUpgrades that a 101
// response's Upgrade switches to ("Upgrade: h2c", see quoteToken), or
// returns "".
func multiplexedUpgrade(resp *http.Response) string {
	for _, u := range resp.Header.Values("Upgrade") {
		for tok := range strings.SplitSeq(u, ",") {
			if compressedUpgrade(tok) {
				t := strings.TrimSpace(tok)
				if !slices.ContainsFunc(compressedUpgrades, func(c string) bool { return strings.EqualFold(c, t) }) {
					t, _, _ = strings.Cut(t, "/") // h2c/<the upstream's text>
				}
				return quoteToken("Upgrade", t, compressedUpgrades)
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
	reportEchoes(r.p, mask, func(reason, cred string) Decision {
		return r.decision(false, RuleCredentialLeak, reason, cred)
	})
}

// reportEchoes records, per credential, where a response repeated its
// value, as the decision about the exchange that decide makes; the next
// response on the connection reports its own.
func reportEchoes(p *Proxy, mask *echoMask, decide func(reason, cred string) Decision) {
	for c, where := range mask.takeHits() {
		p.record(decide(fmt.Sprintf("the upstream repeated %s's value in its response (%s); it reached the sandbox masked",
			c.name, strings.Join(where, ", ")), c.name))
	}
}
