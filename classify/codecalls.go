package classify

import "strings"

// isName reports whether s is a plain identifier.
func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) || s[i] == '.' {
			return false
		}
	}
	return true
}

// callMatch is one call found in code: the string literals that start its
// argument list; whether a literal is joined to something computed (dyn:
// "r"+"m", 'a' . $x, "%s" % x); and whether an argument list follows the
// name at all (call: name(…), not `from shutil import rmtree`).
type callMatch struct {
	lits []string
	dyn  bool
	call bool
	arg  string // the argument list's text
}

// callArgs finds every call of name in code and returns, for each, the
// string literals that start its argument list: name("a"), name ["a","b"],
// name("a", ["b"]), name 'a', "a", qx{…}.
func callArgs(code, name string) []callMatch {
	var out []callMatch
	for _, sp := range nameSpans(code, name) {
		i, off := sp[0], sp[1]
		if i > 0 && isIdent(code[i-1]) && code[i-1] != '.' {
			continue
		}
		rest := code[off:]
		if name == "qx" || name == "%x" {
			if s, ok := delimited(rest); ok {
				out = append(out, callMatch{lits: []string{s}, call: true})
			}
			continue
		}
		if len(rest) > 0 && isIdent(rest[0]) {
			continue
		}
		lits, dyn := literals(rest)
		t := strings.TrimLeft(rest, " \t")
		out = append(out, callMatch{lits: lits, dyn: dyn, call: strings.HasPrefix(t, "(") || strings.HasPrefix(t, "$"), arg: callArgText(rest)})
	}
	return out
}

// nameSpans returns where each occurrence of name in code starts and ends.
func nameSpans(code, name string) [][2]int {
	var out [][2]int
	for off := 0; off < len(code) && name != ""; {
		i := strings.Index(code[off:], name)
		if i < 0 {
			break
		}
		off += i + len(name)
		out = append(out, [2]int{off - len(name), off})
	}
	return out
}

// isVarName reports whether s can name a shell variable: an identifier
// that does not start with a digit.
func isVarName(s string) bool { return s != "" && isName(s) && !isDigit(s[0]) }

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '.'
}

// literals reads the string literals at the start of an argument list;
// dyn reports a literal joined to something else (+, ., %).
func literals(s string) (out []string, dyn bool) {
	i := 0
	skip := func() {
		for i < len(s) && strings.IndexByte(" \t\n([,", s[i]) >= 0 {
			i++
		}
	}
	for {
		skip()
		for i < len(s) && strings.IndexByte("rbfuRBFU", s[i]) >= 0 && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\'') {
			i++
		}
		if i >= len(s) || (s[i] != '"' && s[i] != '\'' && s[i] != '`') {
			return out, false
		}
		lit, n := readLiteral(s[i:])
		if n == 0 {
			return out, false
		}
		out = append(out, lit)
		i += n
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i < len(s) && joins(s[i:]) {
			return out, true
		}
		for i < len(s) && (s[i] == ' ' || s[i] == ']' || s[i] == '\t') {
			i++
		}
		if i >= len(s) || s[i] != ',' {
			return out, false
		}
	}
}

// joins reports whether s, just after a literal, joins it to something
// computed: + or % (Python, JavaScript), or a Perl or PHP "." followed by
// a space, a quote or a variable. A method call ("…".split()) is no join.
func joins(s string) bool {
	switch s[0] {
	case '+', '%':
		return true
	case '.':
		return len(s) > 1 && strings.IndexByte(" \t\"'$", s[1]) >= 0
	}
	return false
}

// readLiteral reads one quoted literal and returns its value and length.
func readLiteral(s string) (string, int) {
	q := s[0]
	if strings.HasPrefix(s, `"""`) || strings.HasPrefix(s, `'''`) {
		end := strings.Index(s[3:], s[:3])
		if end < 0 {
			return "", 0
		}
		return s[3 : 3+end], end + 6
	}
	var sb strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			default:
				sb.WriteByte(s[i])
			}
		case c == q:
			return sb.String(), i + 1
		default:
			sb.WriteByte(c)
		}
	}
	return "", 0
}

// delimited reads qx{…}, qx(…), %x(…) style bodies.
func delimited(s string) (string, bool) {
	s = strings.TrimLeft(s, " ")
	if s == "" {
		return "", false
	}
	open := s[0]
	closer := map[byte]byte{'{': '}', '(': ')', '[': ']', '<': '>', '/': '/', '|': '|', '!': '!', '\'': '\'', '"': '"'}[open]
	if closer == 0 {
		return "", false
	}
	end := strings.IndexByte(s[1:], closer)
	if end < 0 {
		return "", false
	}
	return s[1 : 1+end], true
}

// backticks returns the bodies of `…` command literals.
func backticks(code string) []string {
	var out []string
	for {
		i := strings.IndexByte(code, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(code[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, code[i+1:i+1+j])
		code = code[i+j+2:]
	}
}

// blankStrings replaces what string literals of code hold with spaces,
// keeping their quotes, so that words inside them (print "kill me, now")
// are not read as code.
func blankStrings(code string) string {
	b := []byte(code)
	var quote byte
	for i := 0; i < len(b); i++ {
		switch {
		case quote == 0 && (b[i] == '"' || b[i] == '\''):
			quote = b[i]
		case quote != 0 && b[i] == '\\' && i+1 < len(b):
			b[i], b[i+1] = ' ', ' '
			i++
		case quote != 0 && b[i] == quote:
			quote = 0
		case quote != 0:
			b[i] = ' '
		}
	}
	return string(b)
}

// readLiteralMaybe reads a literal at the start of s, if s starts with
// one of the quote characters quotes.
func readLiteralMaybe(s, quotes string) (string, int) {
	if s == "" || !strings.ContainsRune(quotes, rune(s[0])) {
		return "", 0
	}
	return readLiteral(s)
}
