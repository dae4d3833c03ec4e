package audit

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
)

// hashDomain separates entry hashes from any other SHA-256 use; the version
// changes if the canonical encoding ever does.
const hashDomain = "agentbox-audit-v1\x00"

// kind is the type of a parsed JSON value.
type kind uint8

const (
	kindNull kind = iota
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindArray
	kindObject
)

// value is a JSON value as the canonical encoding sees it: numbers keep their
// literal text, objects keep their members in file order (duplicates are
// rejected by the parser and never produced by the writer).
type value struct {
	kind kind
	str  string // number literal or decoded string
	arr  []value
	obj  []member
}

// member is one name/value pair of a JSON object.
type member struct {
	key string
	val value
}

func strValue(s string) value    { return value{kind: kindString, str: s} }
func numValue(lit string) value  { return value{kind: kindNumber, str: lit} }
func objValue(ms []member) value { return value{kind: kindObject, obj: ms} }

func boolValue(b bool) value {
	if b {
		return value{kind: kindTrue}
	}
	return value{kind: kindFalse}
}

// get returns the member named key of an object.
func (v value) get(key string) (value, bool) {
	for _, m := range v.obj {
		if m.key == key {
			return m.val, true
		}
	}
	return value{}, false
}

// entryHash returns the hex hash of an entry object: the canonical encoding of
// every member but "hash" (see the package documentation).
func entryHash(obj []member, buf []byte) (string, []byte) {
	sum, buf := entrySum(obj, buf)
	return hex.EncodeToString(sum[:]), buf
}

// entrySum is entryHash before hex encoding.
func entrySum(obj []member, buf []byte) ([sha256.Size]byte, []byte) {
	buf = append(buf[:0], hashDomain...)
	buf = appendCanonObject(buf, obj, "hash")
	return sha256.Sum256(buf), buf
}

// hashMatches reports whether the hex string h is sum.
func hashMatches(sum [sha256.Size]byte, h string) bool {
	var x [2 * sha256.Size]byte
	hex.Encode(x[:], sum[:])
	return string(x[:]) == h
}

func appendCanon(buf []byte, v value) []byte {
	switch v.kind {
	case kindNull:
		return append(buf, 'n')
	case kindFalse:
		return append(buf, 'f')
	case kindTrue:
		return append(buf, 't')
	case kindNumber:
		buf = append(buf, 'd')
		buf = binary.AppendUvarint(buf, uint64(len(v.str)))
		return append(buf, v.str...)
	case kindString:
		buf = append(buf, 's')
		buf = binary.AppendUvarint(buf, uint64(len(v.str)))
		return append(buf, v.str...)
	case kindArray:
		buf = append(buf, 'a')
		buf = binary.AppendUvarint(buf, uint64(len(v.arr)))
		for _, e := range v.arr {
			buf = appendCanon(buf, e)
		}
		return buf
	default:
		return appendCanonObject(buf, v.obj, "")
	}
}

// appendCanonObject encodes an object with its members sorted by key,
// leaving out the member named skip (if skip is not empty).
func appendCanonObject(buf []byte, obj []member, skip string) []byte {
	var stack [16]int
	idx := stack[:0]
	if perm, ok := writerOrder(obj, skip); ok {
		idx = append(idx, perm...)
	} else {
		for i, m := range obj {
			if skip != "" && m.key == skip {
				continue
			}
			idx = append(idx, i)
		}
		if !slices.IsSortedFunc(idx, func(a, b int) int { return strings.Compare(obj[a].key, obj[b].key) }) {
			slices.SortFunc(idx, func(a, b int) int { return strings.Compare(obj[a].key, obj[b].key) })
		}
	}
	buf = append(buf, 'o')
	buf = binary.AppendUvarint(buf, uint64(len(idx)))
	for _, i := range idx {
		buf = binary.AppendUvarint(buf, uint64(len(obj[i].key)))
		buf = append(buf, obj[i].key...)
		buf = appendCanon(buf, obj[i].val)
	}
	return buf
}

// writerKeys is the member order the writer uses; writerPerm lists those
// members' positions in key order, without "hash" (the last entry covers the
// optional "details").
var (
	writerKeys = []string{"id", "hash", "prev_hash", "timestamp", "agent_id", "agent_name", "event_type", "allowed", "resource", "rule", "reason", "details"}
	writerPerm = func() []int {
		var p []int
		for i, k := range writerKeys {
			if k != "hash" {
				p = append(p, i)
			}
		}
		slices.SortFunc(p, func(a, b int) int { return strings.Compare(writerKeys[a], writerKeys[b]) })
		return p
	}()
)

// writerOrder returns the sorted order of an entry's members, without
// sorting, when they are in the order the writer uses.
func writerOrder(obj []member, skip string) ([]int, bool) {
	if skip != "hash" || (len(obj) != len(writerKeys) && len(obj) != len(writerKeys)-1) {
		return nil, false
	}
	for i, m := range obj {
		if m.key != writerKeys[i] {
			return nil, false
		}
	}
	if len(obj) == len(writerKeys) {
		return writerPerm, true
	}
	// Without "details", drop its position from the permutation.
	var p [16]int
	out := p[:0]
	for _, i := range writerPerm {
		if i != len(writerKeys)-1 {
			out = append(out, i)
		}
	}
	return out, true
}

// appendJSON writes v as compact JSON, members in the order given.
func appendJSON(buf []byte, v value) []byte {
	switch v.kind {
	case kindNull:
		return append(buf, "null"...)
	case kindFalse:
		return append(buf, "false"...)
	case kindTrue:
		return append(buf, "true"...)
	case kindNumber:
		return append(buf, v.str...)
	case kindString:
		return appendQuoted(buf, v.str)
	case kindArray:
		buf = append(buf, '[')
		for i, e := range v.arr {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSON(buf, e)
		}
		return append(buf, ']')
	default:
		buf = append(buf, '{')
		for i, m := range v.obj {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendQuoted(buf, m.key)
			buf = append(buf, ':')
			buf = appendJSON(buf, m.val)
		}
		return append(buf, '}')
	}
}

const hexDigits = "0123456789abcdef"

// appendQuoted writes s (valid UTF-8) as a JSON string. Control characters,
// the quote and the backslash are escaped; U+2028 and U+2029 too, so that a
// line is also safe to embed in JavaScript.
func appendQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x80 {
			i++
			continue
		}
		if c >= 0x80 {
			if strings.HasPrefix(s[i:], "\u2028") || strings.HasPrefix(s[i:], "\u2029") {
				buf = append(buf, s[start:i]...)
				buf = append(buf, `\u202`...)
				buf = append(buf, hexDigits[s[i+2]&0xf])
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
