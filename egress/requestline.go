package egress

import "strings"

// maxRequestLine bounds what a requestLine reads before it calls the bytes
// HTTP: a line that long that still reads as a request line is one.
const maxRequestLine = 8 << 10

// requestLine tells whether a tunnel's first bytes begin an HTTP request
// line, read as lenient servers read one: [CR|LF]* token (SP|HTAB)+
// target (SP|HTAB)+ "HTTP/". It decides at the first byte that could not
// be part of one (SSH's banner, a binary hello) or at "HTTP/".
//
// A line that only a lenient server would read as a request is ambiguous:
// one after leading whitespace or control bytes, one with other
// whitespace or control bytes (VT, FF, NUL, …) as separators, one whose
// path or URI holds a blank or a control byte, and an
// HTTP/0.9 request (a method and a path or absolute URI, then the end of
// the line), which a server may answer and then read the next line as a
// request. The proxy cannot check the Host such a request names, and no
// protocol that is not HTTP starts like one, so it refuses them. Binary
// protocols that start with a length (NUL bytes) stay undecided only until
// a byte no request line holds.
type requestLine struct {
	state     int
	version   int  // bytes of "http/" matched
	n         int  // bytes fed
	lenient   bool // a byte only a lenient server would accept was skipped
	first     byte // the target's first byte
	upper     bool // the method is all capitals (A-Z, _ and -), as HTTP's are
	scheme    int  // bytes of "://" matched in the target
	decided   bool
	http      bool // a well-formed request line
	ambiguous bool // a request line only to a lenient server
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
			l.decide(true)
		}
	}
	return len(b)
}

// decide ends the line: HTTP (well-formed or ambiguous, as the bytes
// skipped so far say) or not.
func (l *requestLine) decide(isHTTP bool) {
	l.decided = true
	l.http = isHTTP && !l.lenient
	l.ambiguous = isHTTP && l.lenient
}

func (l *requestLine) step(c byte) {
	space := c == ' ' || c == '\t'
	eol := c == '\r' || c == '\n'
	// odd is a separator only a lenient server accepts.
	odd := !space && !eol && isLenientSpace(c)
	if odd {
		l.lenient = true
	}
	switch l.state {
	case rlStart:
		switch {
		case eol:
		case space || odd:
			l.lenient = true
		case isTokenChar(c):
			l.state, l.upper = rlMethod, isUpperMethodChar(c)
		default:
			l.decide(false)
		}
	case rlMethod:
		switch {
		case space || odd:
			l.state = rlGap1
		case !isTokenChar(c):
			l.decide(false)
		default:
			l.upper = l.upper && isUpperMethodChar(c)
		}
	case rlGap1:
		switch {
		case space || odd:
		case c > ' ' && c != 0x7f:
			l.state, l.first = rlTarget, c
			l.matchScheme(c)
		default:
			l.decide(false)
		}
	case rlTarget:
		switch {
		case space || odd:
			l.state = rlGap2
		case eol:
			l.decide(l.http09())
		case c > ' ' && c != 0x7f:
			l.matchScheme(c)
		default:
			l.decide(false)
		}
	case rlGap2:
		switch {
		case space || odd:
			return
		case eol:
			l.decide(l.http09())
			return
		}
		l.state = rlVersion
		fallthrough
	case rlVersion:
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != "http/"[l.version] {
			if l.upper && l.httpTarget() {
				// A blank inside an HTTP target: a lenient server reads on
				// to the version (old nginx's space_in_uri), so this is a
				// request line whose Host the proxy must not let by. Other
				// protocols' words (git's pkt-line, an SSH banner) do not
				// start with a capitals method and a path.
				l.lenient, l.version, l.state = true, 0, rlTarget
				l.step(c)
				return
			}
			l.decide(false)
			return
		}
		if l.version++; l.version == len("http/") {
			l.decide(true)
		}
	}
}

// httpTarget reports whether the target read so far is one an HTTP
// request names: an origin-form path, "*", or an absolute URI.
func (l *requestLine) httpTarget() bool {
	return l.first == '/' || l.first == '*' || l.scheme == len("://")
}

// http09 reports whether the line so far, ended here, is an HTTP/0.9
// request: a method and an origin-form path, "*" or an absolute URI. It
// counts as lenient: HTTP/0.9 carries no Host header to check.
func (l *requestLine) http09() bool {
	if l.httpTarget() {
		l.lenient = true
		return true
	}
	return false
}

// matchScheme follows "://" in the target.
func (l *requestLine) matchScheme(c byte) {
	switch {
	case l.scheme == len("://"):
	case c == "://"[l.scheme]:
		l.scheme++
	case c == ':':
		l.scheme = 1
	default:
		l.scheme = 0
	}
}

// isLenientSpace reports bytes that some server reads as whitespace
// between or before the words of a request line: every control byte, SP,
// DEL, and the Latin-1 NEL and NBSP (Python's str.split, for one).
func isLenientSpace(c byte) bool {
	return c <= ' ' || c == 0x7f || c == 0x85 || c == 0xa0
}

// isUpperMethodChar reports whether c may appear in a method as servers
// that take blanks inside the target read one (nginx: A-Z, _ and -).
func isUpperMethodChar(c byte) bool { return 'A' <= c && c <= 'Z' || c == '_' || c == '-' }

// isTokenChar reports whether c may appear in an HTTP token (a method).
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c < 0x80 && strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
