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
	// maxInterimResponses bounds the informational (1xx) responses
	// skipped before the final one.
	maxInterimResponses = 8
)

var (
	errResponseHeadTooLarge = fmt.Errorf("the upstream's response head is longer than %d bytes", maxResponseHead)
	errTooManyInterim       = fmt.Errorf("the upstream sent more than %d informational (1xx) responses", maxInterimResponses)
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
		resp, err := http.ReadResponse(u.Reader, req)
		u.lim.left = -1
		if err != nil {
			if errors.Is(err, errResponseHeadTooLarge) || u.lim.hit {
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
// not negative.
type headLimit struct {
	r    io.Reader
	left int64
	hit  bool // a read found the limit reached
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
	return n, err
}
