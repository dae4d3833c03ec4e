package egress

import "strings"

// maxRequestLine bounds what a requestLine reads before it calls the bytes
// HTTP: a line that long that still reads as a request line is one.
const maxRequestLine = 8 << 10

// requestLine tells whether a tunnel's first bytes begin an HTTP request
// line, read as lenient servers read one: [CR|LF]* token (SP|HTAB)+
// target (SP|HTAB)+ "HTTP/". It decides at the first byte that could not
// be part of one (SSH's banner, a binary hello, HTTP/0.9, which has no
// headers and so no Host) or at "HTTP/".
type requestLine struct {
	state   int
	version int // bytes of "http/" matched
	n       int // bytes fed
	decided bool
	http    bool
}

const (
	rlStart = iota
	rlMethod
	rlGap1
	rlTarget
	rlGap2
	rlVersion
)

// feed reads b until the line is decided. It returns how many bytes of b
// it took: all of them while undecided, else up to and including the byte
// that decided.
func (l *requestLine) feed(b []byte) int {
	for i, c := range b {
		if l.decided {
			return i
		}
		l.n++
		l.step(c)
		if !l.decided && l.n >= maxRequestLine {
			l.decided, l.http = true, true
		}
	}
	return len(b)
}

func (l *requestLine) step(c byte) {
	notHTTP := func() { l.decided = true }
	space := c == ' ' || c == '\t'
	switch l.state {
	case rlStart:
		if c == '\r' || c == '\n' {
			return
		}
		if !isTokenChar(c) {
			notHTTP()
		}
		l.state = rlMethod
	case rlMethod:
		switch {
		case space:
			l.state = rlGap1
		case !isTokenChar(c):
			notHTTP()
		}
	case rlGap1, rlTarget:
		switch {
		case space && l.state == rlTarget:
			l.state = rlGap2
		case space:
		case c > ' ' && c != 0x7f:
			l.state = rlTarget
		default:
			notHTTP()
		}
	case rlGap2:
		if space {
			return
		}
		l.state = rlVersion
		fallthrough
	case rlVersion:
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != "http/"[l.version] {
			notHTTP()
			return
		}
		if l.version++; l.version == len("http/") {
			l.decided, l.http = true, true
		}
	}
}

// isTokenChar reports whether c may appear in an HTTP token (a method).
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c < 0x80 && strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
