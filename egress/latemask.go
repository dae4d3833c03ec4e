package egress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// A credential's value may go out on one connection while a response from
// a host it is bound to is already under way on another: a long poll, a
// stream of server-sent events, a WebSocket, all opened before the value
// went out, which an upstream that stores a request's headers may fill
// with it (red-team round 55). Every response on a connection to such a
// host is read through lateMask, which checks after each read whether a
// value went out since its mask was last brought up to date, and masks
// from that read on. Requests on these connections ask for whole,
// uncompressed responses from the start (echoMask.watch), so that the
// mask can read one it must take up halfway; one it cannot read is cut.

// errUncheckable ends a stream that cannot be checked for a value that
// went out while it ran.
var errUncheckable = errors.New("a credential bound to the host went out while the stream ran, and the stream cannot be checked for it")

// recallInto adds to mask the values of the credentials of echoes that
// went into a request before, on any connection (of any Proxy sharing the
// Injections), and are not in it yet. A value that cannot be fetched
// returns an error: the response could not be checked for it.
func recallInto(echoes []*credential, mask *echoMask, timeout time.Duration) *credentialError {
	for _, c := range echoes {
		if !c.wasInjected() || mask.has(c) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		s, err := c.value(ctx)
		cancel()
		if err != nil {
			return &credentialError{cred: c, msg: "fetching the value to check the response for it failed", err: err}
		}
		// Added even where it is blank: c is held from now on.
		mask.add(c, SentForm(s.Bytes()))
		mask.add(c, s.Bytes())
		s.Wipe()
	}
	return nil
}

// pending reports whether a credential of echoes went out and is not in
// mask yet.
func pending(echoes []*credential, mask *echoMask) bool {
	for _, c := range echoes {
		if c.wasInjected() && !mask.has(c) {
			return true
		}
	}
	return false
}

// lateMask passes a stream from a host credentials are bound to, masking
// it from the read after which one of their values went out (see above).
// hidden, if set, says why the stream cannot be masked (its coding): it is
// cut there instead.
type lateMask struct {
	src     io.Reader
	echoes  []*credential
	mask    *echoMask
	timeout time.Duration
	where   string
	hidden  string
	mrs     []*maskReader
	err     error
}

func (l *lateMask) Read(p []byte) (int, error) {
	for {
		if l.err != nil {
			return 0, l.err
		}
		n, err := l.src.Read(p)
		if !pending(l.echoes, l.mask) {
			return n, err
		}
		// A value went out since the last check: what this read brought
		// may hold its echo, so it goes through the mask too.
		rest := io.Reader(&prefixReader{pre: bytes.Clone(p[:n]), err: err, r: l.src})
		clear(p[:n])
		if l.hidden != "" {
			l.err = fmt.Errorf("%w (%s)", errUncheckable, l.hidden)
			continue
		}
		if ce := recallInto(l.echoes, l.mask, l.timeout); ce != nil {
			l.err = ce
			continue
		}
		mr := l.mask.reader(rest, l.where)
		l.mrs = append(l.mrs, mr)
		l.src = mr
	}
}

// wipe clears what the masks still hold.
func (l *lateMask) wipe() {
	for _, mr := range l.mrs {
		mr.wipe()
	}
}

// prefixReader reads pre, then err if set, then r.
type prefixReader struct {
	pre []byte
	err error
	r   io.Reader
}

func (p *prefixReader) Read(b []byte) (int, error) {
	if len(p.pre) > 0 {
		n := copy(b, p.pre)
		clear(p.pre[:n])
		p.pre = p.pre[n:]
		return n, nil
	}
	if p.err != nil {
		return 0, p.err
	}
	return p.r.Read(b)
}

// newLateBody reads resp's body through a lateMask: a part (206) or a
// compressed body, which the request did not ask for, is cut should a
// value go out while it comes.
func newLateBody(resp *http.Response, echoes []*credential, mask *echoMask, timeout time.Duration) *lateBody {
	hidden := hiddenCoding(resp)
	if resp.StatusCode == http.StatusPartialContent {
		hidden = "a part of the response (206)"
	}
	return &lateBody{lateMask: &lateMask{src: resp.Body, echoes: echoes, mask: mask, timeout: timeout, where: "the body", hidden: hidden},
		orig: resp.Body, resp: resp}
}

// lateBody is a response body read through a lateMask; at its end, a
// mask that holds values masks the trailer, which the response's writer
// sends next.
type lateBody struct {
	*lateMask
	orig io.Closer
	resp *http.Response
}

func (b *lateBody) Read(p []byte) (int, error) {
	n, err := b.lateMask.Read(p)
	if err == io.EOF && b.mask.active() {
		b.mask.header(b.resp.Trailer, "trailer")
	}
	return n, err
}

func (b *lateBody) Close() error {
	b.wipe()
	return b.orig.Close()
}
