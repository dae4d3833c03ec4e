package audit

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// errSyntax is wrapped by every error of the line parser.
var errSyntax = errors.New("not a JSON object")

// maxDepth bounds nesting so that a hostile line cannot exhaust the stack.
const maxDepth = 32

// parser is a strict JSON parser for one audit line: exactly one object,
// UTF-8, no duplicate keys, numbers kept as written. It is stricter than
// encoding/json (duplicates) so that two readers can never disagree about
// what a hashed line says.
type parser struct {
	b   []byte
	i   int
	top []member // storage for the outermost object's members, if not nil
}

// parseObject parses b (one line without its newline) as a JSON object.
func parseObject(b []byte) (value, error) {
	return parseObjectInto(b, nil)
}

// parseObjectInto is parseObject storing the outermost object's members in
// top[:0] when it is large enough, to spare allocations in loops.
func parseObjectInto(b []byte, top []member) (value, error) {
	p := parser{b: b, top: top}
	p.space()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return value{}, p.fail("expected '{'")
	}
	v, err := p.value(0)
	if err != nil {
		return value{}, err
	}
	p.space()
	if p.i != len(p.b) {
		return value{}, p.fail("trailing data after the object")
	}
	return v, nil
}

func (p *parser) fail(msg string) error {
	return fmt.Errorf("%w: byte %d: %s", errSyntax, p.i+1, msg)
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (value, error) {
	if depth > maxDepth {
		return value{}, p.fail("nested too deeply")
	}
	p.space()
	if p.i >= len(p.b) {
		return value{}, p.fail("unexpected end of line")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		return strValue(s), err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, lit := range [...]struct {
			text string
			v    value
		}{{"true", value{kind: kindTrue}}, {"false", value{kind: kindFalse}}, {"null", value{kind: kindNull}}} {
			if len(p.b)-p.i >= len(lit.text) && string(p.b[p.i:p.i+len(lit.text)]) == lit.text {
				p.i += len(lit.text)
				return lit.v, nil
			}
		}
		return value{}, p.fail("unexpected character")
	}
}

func (p *parser) object(depth int) (value, error) {
	p.i++ // '{'
	var ms []member
	if depth == 0 {
		ms = p.top[:0]
	}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return objValue(ms), nil
	}
	var seen map[string]struct{}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return value{}, p.fail("expected a member name")
		}
		k, err := p.key()
		if err != nil {
			return value{}, err
		}
		if dupKey(ms, &seen, k) {
			return value{}, p.fail(fmt.Sprintf("duplicate key %q", k))
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return value{}, p.fail("expected ':'")
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return value{}, err
		}
		ms = append(ms, member{key: k, val: v})
		p.space()
		if p.i >= len(p.b) {
			return value{}, p.fail("unterminated object")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return objValue(ms), nil
		default:
			return value{}, p.fail("expected ',' or '}'")
		}
	}
}

// dupKey reports whether k is already a key of ms; it switches from a linear
// scan to a set once the object grows.
func dupKey(ms []member, seen *map[string]struct{}, k string) bool {
	const small = 16
	if len(ms) < small {
		for _, m := range ms {
			if m.key == k {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]struct{}, 2*small)
		for _, m := range ms {
			(*seen)[m.key] = struct{}{}
		}
	}
	if _, ok := (*seen)[k]; ok {
		return true
	}
	(*seen)[k] = struct{}{}
	return false
}

func (p *parser) array(depth int) (value, error) {
	p.i++ // '['
	v := value{kind: kindArray}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		e, err := p.value(depth + 1)
		if err != nil {
			return value{}, err
		}
		v.arr = append(v.arr, e)
		p.space()
		if p.i >= len(p.b) {
			return value{}, p.fail("unterminated array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return v, nil
		default:
			return value{}, p.fail("expected ',' or ']'")
		}
	}
}

func (p *parser) number() (value, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		return value{}, p.fail("malformed number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return value{}, p.fail("malformed number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return value{}, p.fail("malformed number")
		}
	}
	return numValue(string(p.b[start:p.i])), nil
}

func (p *parser) digits() int {
	n := 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// key parses a member name, sparing an allocation for the names of entries.
func (p *parser) key() (string, error) {
	if end := bytes.IndexByte(p.b[p.i+1:], '"'); end >= 0 {
		if k := knownKey(p.b[p.i+1 : p.i+1+end]); k != "" {
			p.i += end + 2
			return k, nil
		}
	}
	return p.string()
}

// knownKey returns the writer's member name equal to b, or "".
func knownKey(b []byte) string {
	switch string(b) {
	case "id":
		return "id"
	case "hash":
		return "hash"
	case "prev_hash":
		return "prev_hash"
	case "timestamp":
		return "timestamp"
	case "agent_id":
		return "agent_id"
	case "agent_name":
		return "agent_name"
	case "event_type":
		return "event_type"
	case "allowed":
		return "allowed"
	case "resource":
		return "resource"
	case "rule":
		return "rule"
	case "reason":
		return "reason"
	case "details":
		return "details"
	}
	return ""
}

// knownValues are frequent string values, shared instead of allocated.
var knownValues = func() map[string]string {
	m := map[string]string{Genesis: Genesis}
	for _, t := range eventTypes {
		m[t] = t
	}
	return m
}()

// string parses a quoted string at p.i and returns it decoded.
func (p *parser) string() (string, error) {
	p.i++ // opening quote
	start := p.i
	// Fast path: printable ASCII without escapes.
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			var s string
			ok := false
			if n := p.i - start; n > 0 && n <= 24 {
				s, ok = knownValues[string(p.b[start:p.i])]
			}
			if !ok {
				s = string(p.b[start:p.i])
			}
			p.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		p.i++
	}
	out := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c < 0x20:
			return "", p.fail("control character in string")
		case c == '\\':
			var err error
			if out, err = p.escape(out); err != nil {
				return "", err
			}
		case c < 0x80:
			out = append(out, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && size <= 1 {
				return "", p.fail("invalid UTF-8")
			}
			out = append(out, p.b[p.i:p.i+size]...)
			p.i += size
		}
	}
	return "", p.fail("unterminated string")
}

func (p *parser) escape(out []byte) ([]byte, error) {
	p.i++ // backslash
	if p.i >= len(p.b) {
		return nil, p.fail("unterminated escape")
	}
	c := p.b[p.i]
	p.i++
	switch c {
	case '"', '\\', '/':
		return append(out, c), nil
	case 'b':
		return append(out, '\b'), nil
	case 'f':
		return append(out, '\f'), nil
	case 'n':
		return append(out, '\n'), nil
	case 'r':
		return append(out, '\r'), nil
	case 't':
		return append(out, '\t'), nil
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return nil, p.fail(`malformed \u escape`)
		}
		if utf16.IsSurrogate(r) {
			// A pair decodes to one rune; a lone surrogate becomes U+FFFD,
			// as encoding/json does.
			save := p.i
			if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
				p.i += 2
				if r2, ok := p.hex4(); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						return utf8.AppendRune(out, d), nil
					}
				}
			}
			p.i = save
			r = utf8.RuneError
		}
		return utf8.AppendRune(out, r), nil
	default:
		return nil, p.fail("unknown escape")
	}
}

func (p *parser) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}
