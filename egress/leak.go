package egress

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"
)

// leak is a placeholder found in a request toward a host its credential is
// not bound to.
type leak struct {
	cred  *credential
	where string
}

// findLeak looks for the placeholders of creds in a request head as sent
// (request line and header block) and in the Basic credentials of its
// header values.
func findLeak(creds []*credential, head []byte, h http.Header) *leak {
	for _, c := range creds {
		if bytes.Contains(head, c.ph) {
			return &leak{c, "the request line or headers"}
		}
	}
	for _, vs := range h {
		for _, v := range vs {
			if l := basicLeak(creds, v); l != nil {
				return l
			}
		}
	}
	return nil
}

// findLeakIn looks for the placeholders of creds in header names and
// values (a request's trailers). Names are matched whatever their case:
// the request's reader canonicalises them before they are sent on.
func findLeakIn(creds []*credential, h http.Header, where string) *leak {
	for k, vs := range h {
		for _, c := range creds {
			if strings.Contains(strings.ToLower(k), strings.ToLower(string(c.ph))) {
				return &leak{c, where + "'s name"}
			}
		}
		for _, v := range vs {
			for _, c := range creds {
				if strings.Contains(v, string(c.ph)) {
					return &leak{c, where}
				}
			}
			if l := basicLeak(creds, v); l != nil {
				return l
			}
		}
	}
	return nil
}

func basicLeak(creds []*credential, v string) *leak {
	dec := decodeBasic(v)
	if dec == nil {
		return nil
	}
	defer clear(dec)
	for _, c := range creds {
		if bytes.Contains(dec, c.ph) {
			return &leak{c, "Basic credentials"}
		}
	}
	return nil
}

// decodeBasic returns the decoded credentials of a header value of the
// form "Basic base64", or nil.
func decodeBasic(v string) []byte {
	scheme, rest, ok := strings.Cut(strings.TrimLeft(v, " \t"), " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return nil
	}
	rest = strings.Trim(rest, " \t")
	if rest == "" {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(rest); err != nil {
			return nil
		}
	}
	return b
}

// errPlaceholder is what a leakReader returns once it found a placeholder.
var errPlaceholder = errors.New("a credential placeholder in the body")

// leakReader passes a body through, scanning it for the placeholders of
// creds before any byte leaves: it holds back the last len(placeholder)-1
// bytes until more arrive, so a placeholder split across reads (or chunks)
// is found before its first byte is returned. Once one is found it returns
// errPlaceholder and leak names the credential.
//
// With pass set (an upgraded stream, where the other side may wait for
// what was sent before it sends more) it holds nothing back: it keeps the
// last bytes it returned only to find a placeholder split across reads,
// of which the part before the last read has then gone on; the bytes
// before a placeholder are returned before errPlaceholder, so a whole
// placeholder never leaves.
type leakReader struct {
	r          io.Reader
	creds      []*credential
	keep       int
	pass       bool
	buf        []byte
	start, end int   // buf[start:end] is scanned and not yet returned
	err        error // from r, returned once the buffer is drained
	leak       *credential
}

const leakBufSize = 32 << 10

func newLeakReader(r io.Reader, creds []*credential) *leakReader {
	keep := 0
	for _, c := range creds {
		keep = max(keep, len(c.ph)-1)
	}
	return &leakReader{r: r, creds: creds, keep: keep}
}

func (l *leakReader) Read(p []byte) (int, error) {
	if l.buf == nil {
		// Allocated at the first read, not while a request waits.
		l.buf = make([]byte, leakBufSize+l.keep)
	}
	for {
		ready := l.end - l.start
		if l.err == nil && !l.pass {
			ready -= l.keep
		}
		if ready > 0 {
			n := copy(p, l.buf[l.start:l.start+ready])
			l.start += n
			return n, nil
		}
		if l.err != nil {
			return 0, l.err
		}
		if l.end == len(l.buf) {
			// Keep what is not yet returned, and at least the last keep
			// bytes, returned or not, to find a placeholder they begin.
			s := min(l.start, l.end-l.keep)
			l.end = copy(l.buf, l.buf[s:l.end])
			l.start -= s
		}
		n, err := l.r.Read(l.buf[l.end:])
		if n > 0 {
			// A match ending in the new bytes starts at most keep bytes
			// before them, within what is still held back (or, with
			// pass, kept).
			from := max(l.end-l.keep, 0)
			l.end += n
			at := -1 // where the first placeholder begins
			for _, c := range l.creds {
				if i := bytes.Index(l.buf[from:l.end], c.ph); i >= 0 && (at < 0 || from+i < at) {
					at, l.leak = from+i, c
				}
			}
			if at >= 0 {
				cut := l.start
				if l.pass {
					cut = max(l.start, at)
				}
				clear(l.buf[cut:])
				l.end, err = cut, errPlaceholder
			}
		}
		if err != nil {
			l.err = err
		}
	}
}

// Close closes the underlying reader if it is a Closer.
func (l *leakReader) Close() error {
	if c, ok := l.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// wipeBuf is a byte buffer for data that holds secrets: when it grows it
// wipes the array it leaves, and wipe clears it all.
type wipeBuf struct{ b []byte }

func newWipeBuf(n int) *wipeBuf { return &wipeBuf{b: make([]byte, 0, n)} }

func (w *wipeBuf) grow(n int) {
	if len(w.b)+n <= cap(w.b) {
		return
	}
	nb := make([]byte, len(w.b), 2*cap(w.b)+n)
	copy(nb, w.b)
	clear(w.b[:cap(w.b)])
	w.b = nb
}

func (w *wipeBuf) write(p []byte) {
	w.grow(len(p))
	w.b = append(w.b, p...)
}

func (w *wipeBuf) str(s string) {
	w.grow(len(s))
	w.b = append(w.b, s...)
}

func (w *wipeBuf) bytes() []byte { return w.b }

func (w *wipeBuf) wipe() {
	clear(w.b[:cap(w.b)])
	w.b = w.b[:0]
}
