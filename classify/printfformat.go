package classify

import (
	"strconv"
	"strings"
)

// printfFormat computes what bash's builtin printf writes for FORMAT and
// its ARGs (printf.def: FORMAT's escapes by tescape, %b's by bexpand,
// widths and precisions in bytes, FORMAT reused while ARGs remain). It is
// the one engine behind $(printf …) folding and printf -v values. exact
// is false for anything it does not model byte for byte (a number ARG
// that overflows or is 'c of non-ASCII c, %x %f %q %(…)T …, flags other
// than - and %d's 0, length modifiers, a width or precision over
// non-ASCII text, \u above 0x7f, a NUL byte, a format
// error): text is then an approximation that must not be trusted as
// the output (fail closed: callers keep it as a run-time value).
func printfFormat(format string, args []string) (text string, exact bool) {
	r := &printfRun{args: args, exact: true}
	for pass := 0; ; pass++ {
		r.used = false
		r.pass(format)
		if r.stop || !r.used || len(r.args) == 0 {
			break
		}
		if pass == 63 { // FORMAT reused at most 64 times
			r.exact = false
			break
		}
	}
	out := r.sb.String()
	if strings.IndexByte(out, 0) >= 0 {
		r.exact = false // printf -v and $(…) both drop what a NUL byte ends
	}
	return out, r.exact
}

// printfRun is the state of one printf call: its output, the ARGs left,
// whether this pass of FORMAT used one, and whether \c stopped it.
type printfRun struct {
	sb    strings.Builder
	args  []string
	used  bool
	exact bool
	stop  bool
}

const (
	printfFlags   = "#'-+ 0"   // SKIP1 in printf.def
	printfLenMods = "hjlLtzqZ" // LENMODS in printf.def
	printfMaxPad  = 4096       // wider fields are not computed
)

func (r *printfRun) pass(format string) {
	for i := 0; i < len(format) && !r.stop; {
		c := format[i]
		switch {
		case c == '\\':
			out, n, _, ok := printfEscape(format[i+1:], false)
			r.sb.WriteString(out)
			r.exact = r.exact && ok
			i += 1 + n
		case c != '%':
			r.sb.WriteByte(c)
			i++
		case i+1 < len(format) && format[i+1] == '%':
			r.sb.WriteByte('%')
			i += 2
		default:
			i = r.conv(format, i)
		}
	}
}

// next takes the next ARG; a missing one is "".
func (r *printfRun) next() string {
	if len(r.args) == 0 {
		return ""
	}
	a := r.args[0]
	r.args, r.used = r.args[1:], true
	return a
}

// printfNumber reads a numeric ARG (a * count, a %d value) as bash's
// getintmax does: 'c or "c is the code of c; otherwise strtoimax(…, 0)
// after leading blanks and a sign, so 010 is octal 8 and 0x1f is 31. A
// word with junk after the number (08, 013x, "") is an error bash reports
// on stderr but still uses the value read so far (0, 11, 0), so that
// value is the exact one too. A non-ASCII char after ' depends on the
// locale, and an overflow on clamping: both are not modelled.
func printfNumber(a string) (int64, bool) {
	if a != "" && (a[0] == '\'' || a[0] == '"') {
		if len(a) == 1 {
			return 0, true
		}
		return int64(a[1]), a[1] < 0x80
	}
	s := strings.TrimLeft(a, " \t\n\v\f\r")
	neg := s != "" && s[0] == '-'
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	base := int64(10)
	switch {
	case len(s) > 2 && (s[1] == 'x' || s[1] == 'X') && s[0] == '0' && digitVal(s[2]) >= 0:
		base, s = 16, s[2:]
	case s != "" && s[0] == '0':
		base = 8
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := int64(digitVal(s[i]))
		if d < 0 || d >= base {
			break // junk: bash keeps what it read so far
		}
		if n > (1<<63-1-d)/base {
			return 0, false // ERANGE: clamped, not modelled
		}
		n = n*base + d
	}
	if neg {
		n = -n
	}
	return n, true
}

// star takes the count of a * width or precision from the next ARG, read
// as a C number (printfNumber: 013 is 11, not 13).
func (r *printfRun) star() int {
	if len(r.args) == 0 {
		r.exact = false
		return 0
	}
	n, ok := printfNumber(r.next())
	if !ok || n > printfMaxPad || n < -printfMaxPad {
		r.exact = false
		return 0
	}
	return int(n)
}

// conv writes one conversion starting at format[i] ('%') and returns the
// index after it.
func (r *printfRun) conv(format string, i int) int {
	j := i + 1
	left, zero := false, false
	for ; j < len(format) && strings.IndexByte(printfFlags, format[j]) >= 0; j++ {
		switch format[j] {
		case '-':
			left = true
		case '0':
			zero = true // modelled for %d and %i only
		default:
			r.exact = false // # ' + space: not modelled
		}
	}
	width, prec := 0, -1
	if j < len(format) && format[j] == '*' {
		j++
		if width = r.star(); width < 0 {
			left, width = true, -width
		}
	} else {
		width, j = r.digits(format, j)
	}
	if j < len(format) && format[j] == '.' {
		j++
		switch {
		case j < len(format) && format[j] == '*':
			j++
			prec = r.star() // negative: as if none
		case j < len(format) && format[j] == '-':
			r.exact = false
			_, j = r.digits(format, j+1)
		default:
			prec, j = r.digits(format, j)
		}
	}
	for ; j < len(format) && strings.IndexByte(printfLenMods, format[j]) >= 0; j++ {
		r.exact = false
	}
	if j >= len(format) {
		r.exact, r.stop = false, true // "missing format character"
		return j
	}
	if zero && format[j] != 'd' && format[j] != 'i' {
		r.exact = false
	}
	switch format[j] {
	case 'd', 'i':
		r.integer(r.next(), left, zero, width, prec)
	case 's':
		r.pad(r.next(), left, width, prec)
	case 'b':
		out, stop, ok := printfBExpand(r.next())
		r.exact = r.exact && ok
		r.pad(out, left, width, prec)
		r.stop = stop
	case 'c':
		a := r.next() + "\x00"
		if prec >= 0 {
			r.exact = false
		}
		r.pad(a[:1], left, width, -1)
	default:
		// %d %q %(…)T …: not modelled; the ARG stands for its output.
		r.exact = false
		r.sb.WriteString(r.next())
	}
	return j + 1
}

// integer writes %d of ARG, read as a C number (printfNumber), as C's
// printf does: prec is the least number of digits, the 0 flag pads a
// width with zeros.
func (r *printfRun) integer(a string, left, zero bool, width, prec int) {
	n, ok := printfNumber(a) // a missing ARG is "", which is 0
	if !ok {
		r.exact = false
		r.sb.WriteString(a)
		return
	}
	sign, digits := "", strconv.FormatInt(n, 10)
	if n < 0 {
		sign, digits = "-", digits[1:]
	}
	if prec == 0 && n == 0 {
		digits = ""
	}
	if prec > len(digits) {
		digits = strings.Repeat("0", prec-len(digits)) + digits
	}
	if zero && !left && prec < 0 && width > len(sign)+len(digits) {
		digits = strings.Repeat("0", width-len(sign)-len(digits)) + digits
	}
	r.pad(sign+digits, left, width, -1)
}

// digits reads a decimal width or precision at format[j].
func (r *printfRun) digits(format string, j int) (int, int) {
	n := 0
	for ; j < len(format) && format[j] >= '0' && format[j] <= '9'; j++ {
		if n = n*10 + int(format[j]-'0'); n > printfMaxPad {
			r.exact, n = false, printfMaxPad
		}
	}
	return n, j
}

// pad writes s cut to prec bytes (prec < 0: no precision) and padded with
// spaces to width bytes, on the left unless left.
func (r *printfRun) pad(s string, left bool, width, prec int) {
	if (width > 0 || prec >= 0) && !isASCII(s) {
		r.exact = false // a multibyte locale may count characters
	}
	if prec >= 0 && prec < len(s) {
		s = s[:prec]
	}
	fill := strings.Repeat(" ", max(0, width-len(s)))
	if left {
		r.sb.WriteString(s + fill)
	} else {
		r.sb.WriteString(fill + s)
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// printfBExpand decodes a %b ARG as bash's bexpand does; stop is true at
// \c, which ends printf's whole output there.
func printfBExpand(s string) (out string, stop, exact bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false, true
	}
	var sb strings.Builder
	exact = true
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 >= len(s) {
			sb.WriteByte(s[i])
			i++
			continue
		}
		o, n, c, ok := printfEscape(s[i+1:], true)
		if c {
			return sb.String(), true, exact
		}
		sb.WriteString(o)
		exact = exact && ok
		i += 1 + n
	}
	return sb.String(), false, exact
}

// printfSimple maps the one-letter escapes tescape knows.
var printfSimple = map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11, '\\': '\\'}

// printfEscape decodes the escape after a backslash as bash's tescape
// does, in FORMAT (inB false) or in a %b ARG (inB true): \0NNN takes up
// to three octal digits after the 0 only in %b; \', \" and \? lose their
// backslash only in FORMAT; \c stops output only in %b. n is how many
// bytes of s it used: 0 leaves the backslash as itself.
func printfEscape(s string, inB bool) (out string, n int, stopC, exact bool) {
	if s == "" {
		return `\`, 0, false, true
	}
	c := s[0]
	if b, ok := printfSimple[c]; ok {
		return string([]byte{b}), 1, false, true
	}
	switch {
	case c >= '0' && c <= '7':
		more := 2
		if c == '0' && inB {
			more = 3
		}
		v, k := parseBase(s[1:], 8, more)
		v += int(c-'0') << (3 * uint(k))
		return string([]byte{byte(v)}), 1 + k, false, true
	case c == 'x':
		v, k := parseBase(s[1:], 16, 2)
		if k == 0 {
			return `\`, 0, false, true
		}
		return string([]byte{byte(v)}), 1 + k, false, true
	case c == 'u' || c == 'U':
		v, k := parseBase(s[1:], 16, map[byte]int{'u': 4, 'U': 8}[c])
		if k == 0 {
			return `\`, 0, false, true
		}
		if v > 0x7f {
			return string(rune(v)), 1 + k, false, false // depends on the locale
		}
		return string([]byte{byte(v)}), 1 + k, false, true
	case c == '\'' || c == '"' || c == '?':
		if inB {
			return `\`, 0, false, true
		}
		return string(c), 1, false, true
	case c == 'c' && inB:
		return "", 1, true, true
	}
	return `\`, 0, false, true
}
