package egress

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// An upstream that repeats a request header seldom repeats its bytes as
// they went out: it repeats them inside JSON, a URL or HTML, escaped as
// those require or as its stack does by default (PHP's json_encode writes
// / as \/, .NET's System.Text.Json + as \u002B, a redirect's Location /
// as %2F). A value with such a byte (base64: most generated secrets) came
// back one unescape away from the clear, unmasked (red-team round 50).
// The mask finds a value written with each of its bytes in any of these
// forms:
//
//   - the byte itself;
//   - JSON and JavaScript: \uXXXX, \xXX, \/ \" \' \\, and \t \n \r \b \f;
//   - URLs: %XX, and + for a space (form encoding);
//   - HTML: &#N; and &#xN; (up to maxForm bytes), and the named references
//     of namedRefs;
//
// and each character of more than one byte (ü, the UTF-8 bytes C3 BC) as
// its bytes so, or as its code point: \u00fc, a surrogate pair
// \ud83d\ude00 for one past the first plane, &#252;, &#xFC; (red-team
// round 52).
//
// An encoding of the whole value (base64 of it, a hash) is not an echo any
// mask can see; nor is one the upstream invents.

// maxForm is the longest form of one byte: &#x0000002F;.
const maxForm = 12

// namedRefs are the HTML character references, by name, of the bytes
// escapers write with one.
var namedRefs = map[string]byte{
	"amp": '&', "lt": '<', "gt": '>', "quot": '"', "apos": '\'', "sol": '/', "plus": '+',
	"equals": '=', "num": '#', "percnt": '%', "colon": ':', "comma": ',', "period": '.',
	"lowbar": '_', "hyphen": '-', "dollar": '$', "excl": '!', "quest": '?', "semi": ';',
	"commat": '@', "bsol": '\\', "verbar": '|', "lpar": '(', "rpar": ')', "ast": '*',
	"lsqb": '[', "rsqb": ']', "lcub": '{', "rcub": '}', "grave": '`', "tilde": '~', "Hat": '^',
}

// formMatcher finds the occurrences of one value in any of its forms.
type formMatcher struct {
	v     []byte
	fold  bool    // ASCII letters match in either case
	start []byte  // the bytes a form of v[0] may begin with
	ends  [][]int // ends[k]: where a match of v[:k] may end (see at)
}

func newFormMatcher(v []byte, fold bool) *formMatcher {
	m := &formMatcher{v: v, fold: fold, start: []byte{'\\', '%', '&', '+'}}
	if len(v) > 0 {
		m.start = append(m.start, v[0])
		if fold {
			m.start = append(m.start, lowerASCII(v[0]), upperASCII(v[0]))
		}
	}
	slices.Sort(m.start)
	m.start = slices.Compact(m.start)
	return m
}

// span is the longest text a value of n bytes may be written as.
func formSpan(n int) int { return n * maxForm }

// each calls found(i, j) for every occurrence b[i:j] of the value, left
// to right, none overlapping; the longest where several end differently.
// The bytes a form may begin with are sought with bytes.IndexByte, which
// is many times faster than looking at each byte.
func (m *formMatcher) each(b []byte, found func(i, j int)) {
	if len(m.v) == 0 {
		return
	}
	var next [6]int // per start byte: where it is next found at or after from, len(b) for nowhere
	from := 0
	seek := func(k int) {
		if j := bytes.IndexByte(b[from:], m.start[k]); j >= 0 {
			next[k] = from + j
		} else {
			next[k] = len(b)
		}
	}
	for k := range m.start {
		seek(k)
	}
	for {
		i := slices.Min(next[:len(m.start)])
		if i >= len(b) {
			return
		}
		from = i + 1
		if f := m.forms(b[i:], m.v[0]); f == [2]int{} && !m.firstRune(b[i:]) {
			// Most places are no form of the value's first byte.
		} else if j := m.at(b, i); j > i {
			found(i, j)
			from = j
		}
		for k := range m.start {
			if next[k] < from {
				seek(k)
			}
		}
	}
}

// firstRune reports whether b begins with an escape of the value's first
// character, where it has more than one byte.
func (m *formMatcher) firstRune(b []byte) bool {
	r, size := utf8.DecodeRune(m.v)
	return size > 1 && r != utf8.RuneError && codePointForm(b, r) > 0
}

// at returns the end of an occurrence of the value at b[i:], or -1. It
// follows every way the text may spell the value, a byte or a character
// at a time.
func (m *formMatcher) at(b []byte, i int) int {
	n := len(m.v)
	m.ends = slices.Grow(m.ends[:0], n+1)[:n+1]
	for k := range m.ends {
		m.ends[k] = m.ends[k][:0]
	}
	add := func(k, p int) {
		if !slices.Contains(m.ends[k], p) {
			m.ends[k] = append(m.ends[k], p)
		}
	}
	m.ends[0] = append(m.ends[0], i)
	for k := 0; k < n; k++ {
		r, size := utf8.DecodeRune(m.v[k:])
		for _, p := range m.ends[k] {
			for _, l := range m.forms(b[p:], m.v[k]) {
				if l > 0 {
					add(k+1, p+l)
				}
			}
			if size > 1 && r != utf8.RuneError {
				if l := codePointForm(b[p:], r); l > 0 {
					add(k+size, p+l)
				}
			}
		}
	}
	if len(m.ends[n]) == 0 {
		return -1
	}
	return slices.Max(m.ends[n])
}

// forms returns the lengths of the forms of c that b begins with (0 for
// none): the byte itself, and one escape.
func (m *formMatcher) forms(b []byte, c byte) [2]int {
	var out [2]int
	if len(b) == 0 {
		return out
	}
	if m.same(b[0], c) {
		out[0] = 1
	}
	var d byte
	l := 0
	switch b[0] {
	case '+':
		d, l = ' ', 1 // form encoding (url.QueryEscape)
	case '\\':
		d, l = backslashForm(b)
	case '%':
		if len(b) >= 3 {
			if x, ok := hexValue(b[1:3]); ok {
				d, l = byte(x), 3
			}
		}
	case '&':
		if len(b) > 1 && b[1] == '#' {
			var x rune
			if x, l = numericRef(b); x >= 256 {
				l = 0
			}
			d = byte(x)
		} else if l = namedRef(b, c); l > 0 {
			d = c
		}
	}
	if l > 0 && m.same(d, c) {
		out[1] = l
	}
	return out
}

func (m *formMatcher) same(x, c byte) bool {
	return x == c || m.fold && lowerASCII(x) == lowerASCII(c)
}

// backslashForm decodes a JSON or JavaScript escape of one byte at the
// start of b.
func backslashForm(b []byte) (byte, int) {
	if len(b) < 2 {
		return 0, 0
	}
	switch b[1] {
	case '/', '"', '\'', '\\':
		return b[1], 2
	case 't':
		return '\t', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'u':
		if x, l := unicodeEscape(b); l == 6 && x < 256 {
			return byte(x), 6
		}
	case 'x':
		if len(b) >= 4 {
			if x, ok := hexValue(b[2:4]); ok {
				return byte(x), 4
			}
		}
	}
	return 0, 0
}

// unicodeEscape decodes \uXXXX at the start of b, and the low half that
// follows a high surrogate (\ud83d\ude00): the code point and the length.
func unicodeEscape(b []byte) (rune, int) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, 0
	}
	x, ok := hexValue(b[2:6])
	if !ok {
		return 0, 0
	}
	if 0xD800 <= x && x < 0xDC00 {
		if y, l := unicodeEscape(b[6:]); l == 6 && 0xDC00 <= y && y < 0xE000 {
			return 0x10000 + (rune(x)-0xD800)<<10 + (y - 0xDC00), 12
		}
	}
	return rune(x), 6
}

// codePointForm returns the length of an escape of the code point r at
// the start of b (\u00fc, \ud83d\ude00, &#252;, &#xFC;), or 0.
func codePointForm(b []byte, r rune) int {
	if len(b) < 2 {
		return 0
	}
	var x rune
	l := 0
	switch {
	case b[0] == '\\':
		x, l = unicodeEscape(b)
	case b[0] == '&' && b[1] == '#':
		x, l = numericRef(b)
	}
	if l > 0 && x == r {
		return l
	}
	return 0
}

// numericRef decodes an HTML numeric character reference (&#47; &#x2F;)
// at the start of b, ended by its semicolon.
func numericRef(b []byte) (rune, int) {
	end := bytes.IndexByte(b[:min(len(b), maxForm)], ';')
	if end < 3 {
		return 0, 0
	}
	ref := b[2:end]
	var x int
	var ok bool
	if ref[0] == 'x' || ref[0] == 'X' {
		x, ok = hexValue(ref[1:])
	} else {
		x, ok = decValue(ref)
	}
	if !ok || x > utf8.MaxRune {
		return 0, 0
	}
	return rune(x), end + 1
}

// namedRef returns the length of an HTML named reference to c (&sol;) at
// the start of b, or 0.
func namedRef(b []byte, c byte) int {
	for _, name := range refNames[c] {
		if n := 1 + len(name); len(b) > n && b[n] == ';' && string(b[1:n]) == name {
			return n + 1
		}
	}
	return 0
}

// refNames are the names of namedRefs by the byte they stand for.
var refNames = func() (out [256][]string) {
	for name, c := range namedRefs {
		out[c] = append(out[c], name)
	}
	return out
}()

func hexValue(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	x := 0
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			x = x*16 + int(c-'0')
		case 'a' <= c && c <= 'f':
			x = x*16 + int(c-'a'+10)
		case 'A' <= c && c <= 'F':
			x = x*16 + int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return x, true
}

func decValue(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	x := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		x = x*10 + int(c-'0')
	}
	return x, true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
