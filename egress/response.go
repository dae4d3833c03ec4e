package egress

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Bounds on what an upstream's response may make the proxy hold: the
// agentbox process reads every response head whole, and its memory is
// charged to no sandbox.
const (
	// maxResponseHead bounds one response's status line and header
	// fields (Go's own client allows 10 MiB; no real service comes near).
	maxResponseHead = 1 << 20
	// maxResponseFields bounds its header fields: parsed, each costs
	// far more than its bytes (a map entry and strings), and a head of
	// empty fields held twenty times its size. Found by red-team round 49.
	maxResponseFields = 1000
	// maxInterimResponses bounds the informational (1xx) responses
	// skipped before the final one.
	maxInterimResponses = 8
)

var (
	errResponseHeadTooLarge = fmt.Errorf("the upstream's response head is longer than %d bytes", maxResponseHead)
	errTooManyInterim       = fmt.Errorf("the upstream sent more than %d informational (1xx) responses", maxInterimResponses)
	errTooManyFields        = fmt.Errorf("the upstream's response head has more than %d header fields", maxResponseFields)
)

// upstreamReader reads responses from an upstream connection, the head of
// each within maxResponseHead; the body after it is not bounded here.
type upstreamReader struct {
	*bufio.Reader
	lim *headLimit
}

func newUpstreamReader(r io.Reader) *upstreamReader {
	lim := &headLimit{r: r, left: -1}
	return &upstreamReader{Reader: bufio.NewReaderSize(lim, 4096), lim: lim}
}

// readResponse reads the response to req, skipping informational (1xx)
// responses but for 101 Switching Protocols, which it returns.
func (u *upstreamReader) readResponse(req *http.Request) (*http.Response, error) {
	for interim := 0; ; interim++ {
		if interim > maxInterimResponses {
			return nil, errTooManyInterim
		}
		// What is buffered already counts against the head.
		u.lim.left = max(maxResponseHead-int64(u.Buffered()), 0)
		u.lim.lines, u.lim.lineLen, u.lim.headDone, u.lim.tooMany = 0, 0, false, false
		resp, err := http.ReadResponse(u.Reader, req)
		u.lim.left = -1
		if err != nil {
			switch {
			case u.lim.tooMany:
				return nil, errTooManyFields
			case errors.Is(err, errResponseHeadTooLarge) || u.lim.hit:
				return nil, errResponseHeadTooLarge
			}
			return nil, err
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			_ = resp.Body.Close()
			continue
		}
		return resp, nil
	}
}

// headLimit passes reads through, at most left bytes of them when left is
// not negative; then it also counts the head's lines up to the blank line
// that ends it, and fails the read that passes maxResponseFields.
type headLimit struct {
	r    io.Reader
	left int64
	hit  bool // a read found the limit reached

	lines, lineLen int
	headDone       bool
	tooMany        bool // a read found too many header fields
}

func (l *headLimit) Read(p []byte) (int, error) {
	if l.left < 0 {
		return l.r.Read(p)
	}
	if l.left == 0 {
		l.hit = true
		return 0, errResponseHeadTooLarge
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if !l.headDone && l.countLines(p[:n]) {
		// None of it is passed on: the parser would finish the head
		// from what it was given before it saw the error.
		l.tooMany = true
		return 0, errTooManyFields
	}
	return n, err
}

// countLines counts the head's lines in b (the status line, then one a
// field: more for a folded one, which only makes the count stricter) and
// reports whether there are more than the status line and
// maxResponseFields.
func (l *headLimit) countLines(b []byte) bool {
	for _, c := range b {
		switch c {
		case '\n':
			if l.lineLen == 0 {
				l.headDone = true
				return false
			}
			if l.lines++; l.lines > maxResponseFields+1 {
				return true
			}
			l.lineLen = 0
		case '\r':
		default:
			l.lineLen++
		}
	}
	return false
}
