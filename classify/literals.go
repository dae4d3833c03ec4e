package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Brace expansion, ANSI-C quoting and small number helpers.

// braceSeqs turns a word that may hold BraceExp nodes into the list of part
// sequences it expands to, at most maxBraceFields of them.
func braceSeqs(parts []syntax.WordPart) [][]syntax.WordPart {
	seqs := [][]syntax.WordPart{nil}
	for _, p := range parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range seqs {
				seqs[i] = append(seqs[i], p)
			}
			continue
		}
		var alts [][]syntax.WordPart
		if be.Sequence {
			alts = braceSequence(be)
		} else {
			for _, e := range be.Elems {
				alts = append(alts, braceSeqs(e.Parts)...)
			}
		}
		var next [][]syntax.WordPart
		for _, s := range seqs {
			for _, alt := range alts {
				if len(next) >= maxBraceFields {
					break
				}
				n := make([]syntax.WordPart, 0, len(s)+len(alt))
				n = append(append(n, s...), alt...)
				next = append(next, n)
			}
		}
		seqs = next
	}
	return seqs
}

// joinLits joins runs of adjacent literal parts into one. SplitBraces
// leaves every brace of a word its own part even where it finds no
// expansion ({}{}{}…, a find or xargs placeholder repeated), and adding
// tens of thousands of parts one by one to a field copies it each time.
func joinLits(parts []syntax.WordPart) []syntax.WordPart {
	out := make([]syntax.WordPart, 0, len(parts))
	for i := 0; i < len(parts); {
		l, ok := parts[i].(*syntax.Lit)
		j := i + 1
		for ok && j < len(parts) {
			if _, next := parts[j].(*syntax.Lit); !next {
				break
			}
			j++
		}
		if !ok || j == i+1 {
			out = append(out, parts[i])
			i++
			continue
		}
		var sb strings.Builder
		for _, p := range parts[i:j] {
			sb.WriteString(p.(*syntax.Lit).Value)
		}
		out = append(out, &syntax.Lit{ValuePos: l.ValuePos, ValueEnd: parts[j-1].End(), Value: sb.String()})
		i = j
	}
	return out
}

// braceSequence expands {a..e} or {1..5}; anything else stays literal.
func braceSequence(be *syntax.BraceExp) [][]syntax.WordPart {
	lit := func(s string) []syntax.WordPart { return []syntax.WordPart{&syntax.Lit{Value: s}} }
	if len(be.Elems) < 2 {
		return [][]syntax.WordPart{lit("")}
	}
	from, to := be.Elems[0].Lit(), be.Elems[1].Lit()
	if len(from) == 1 && len(to) == 1 && !isDigit(from[0]) {
		var out [][]syntax.WordPart
		step := 1
		if from[0] > to[0] {
			step = -1
		}
		for c := int(from[0]); len(out) < maxBraceFields; c += step {
			out = append(out, lit(string(rune(c))))
			if c == int(to[0]) {
				break
			}
		}
		return out
	}
	x, ok1 := atoiSmall(from)
	y, ok2 := atoiSmall(to)
	if !ok1 || !ok2 {
		return [][]syntax.WordPart{lit(from)}
	}
	step := 1
	if x > y {
		step = -1
	}
	var out [][]syntax.WordPart
	for n := x; len(out) < maxBraceFields; n += step {
		out = append(out, lit(itoa(n)))
		if n == y {
			break
		}
	}
	return out
}

// ansiC decodes the body of a $'...' string the way bash does.
func ansiC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			sb.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			sb.WriteByte(7)
		case 'b':
			sb.WriteByte(8)
		case 'e', 'E':
			sb.WriteByte(27)
		case 'f':
			sb.WriteByte(12)
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'v':
			sb.WriteByte(11)
		case 'c':
			if i+1 < len(s) {
				i++
				sb.WriteByte(s[i] & 0x1f)
			}
		case 'x':
			n, k := parseBase(s[i+1:], 16, 2)
			if k == 0 {
				sb.WriteString("\\x")
				continue
			}
			sb.WriteByte(byte(n))
			i += k
		case 'u', 'U':
			max := 4
			if c == 'U' {
				max = 8
			}
			n, k := parseBase(s[i+1:], 16, max)
			if k == 0 {
				sb.WriteByte('\\')
				sb.WriteByte(c)
				continue
			}
			sb.WriteRune(rune(n))
			i += k
		default:
			if c >= '0' && c <= '7' {
				n, k := parseBase(s[i:], 8, 3)
				sb.WriteByte(byte(n))
				i += k - 1
				continue
			}
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// parseBase reads up to max digits of the given base from the start of s.
func parseBase(s string, base, max int) (n, k int) {
	for k < len(s) && k < max {
		d := digitVal(s[k])
		if d < 0 || d >= base {
			break
		}
		n = n*base + d
		k++
	}
	return n, k
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func atoiSmall(s string) (int, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// bashInt reads an integer constant as bash arithmetic does: decimal,
// 0x1F (hex), 017 (octal) or base#digits (base 2 to 64: 0-9, a-z, A-Z,
// @ and _; letters of either case are 10-35 up to base 36). ok is false
// for anything else, or a value too large to be a length.
func bashInt(s string) (int, bool) {
	base, digits := 10, s
	switch {
	case strings.Contains(s, "#"):
		b, rest, _ := strings.Cut(s, "#")
		n, ok := atoiSmall(b)
		if !ok || n < 2 || n > 64 {
			return 0, false
		}
		base, digits = n, rest
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		base, digits = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	if digits == "" || len(digits) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		d := baseDigit(digits[i], base)
		if d < 0 {
			return 0, false
		}
		n = n*base + d
	}
	return n, n < 1<<31
}

// baseDigit returns the value of c as a digit of base, or -1.
func baseDigit(c byte, base int) int {
	d := -1
	switch {
	case isDigit(c):
		d = int(c - '0')
	case 'a' <= c && c <= 'z':
		d = int(c-'a') + 10
	case 'A' <= c && c <= 'Z':
		d = int(c-'A') + 10
		if base > 36 {
			d += 26
		}
	case c == '@':
		d = 62
	case c == '_':
		d = 63
	}
	if d >= base {
		return -1
	}
	return d
}
