package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Attributes declare, typeset, local and readonly give a variable that
// change what later assignments to it store.
const (
	attrLower    uint8 = 1 << iota // -l: values are stored lower-case
	attrUpper                      // -u: upper-case
	attrCap                        // -c: capitalised
	attrReadonly                   // -r, readonly: assignments fail
	attrMixed                      // given on some paths only: what an assignment stores is only known at run time
	attrInt                        // -i: values are evaluated as arithmetic (see arith.go)
	attrAssoc                      // -A: subscripts are keys (strings), not arithmetic

	attrCase = attrLower | attrUpper | attrCap
)

// setAttrs gives the variable name the attributes set (readonly aside)
// and takes away those in unset. A case attribute replaces the others.
func (a *analyzer) setAttrs(name string, set, unset uint8) {
	name = a.refName(name)
	old, had := a.attrs[name]
	at := old
	if set&attrCase != 0 {
		at &^= attrCase
	}
	at = (at | set&^attrReadonly) &^ unset
	if at == old && (had || at == 0) {
		return
	}
	if a.attrs == nil {
		a.attrs = map[string]uint8{}
	}
	a.attrs[name] = at
}

// markReadonly makes later assignments to name fail: it keeps the value it
// has (one the line gave it, or the environment's).
func (a *analyzer) markReadonly(name string) {
	if a.attrs == nil {
		a.attrs = map[string]uint8{}
	}
	a.attrs[a.refName(name)] |= attrReadonly
}

// withAttrs returns the value an assignment of v to a variable with the
// attributes at stores; ok is false when the assignment fails (readonly).
func withAttrs(v varVal, at uint8) (varVal, bool) {
	if at&attrMixed != 0 {
		return varVal{}, true
	}
	if at&attrReadonly != 0 {
		return v, false
	}
	c := at & attrCase
	if c == 0 || !v.known && !v.hasDflt {
		return v, true
	}
	if c != attrLower && c != attrUpper && c != attrCap {
		return varVal{}, true // more than one: left to run time
	}
	v.val, v.dflt = convCase(v.val, c), convCase(v.dflt, c)
	v.arr, v.dfltArr = convCaseAll(v.arr, c), convCaseAll(v.dfltArr, c)
	return v, true
}

// convCase converts s as the case attribute c does.
func convCase(s string, c uint8) string {
	switch c {
	case attrLower:
		return strings.ToLower(s)
	case attrUpper:
		return strings.ToUpper(s)
	}
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + strings.ToLower(s[n:])
}

// convCaseAll converts the case of each element of an array (nil stays
// nil).
func convCaseAll(arr []string, c uint8) []string {
	if arr == nil {
		return nil
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		out[i] = convCase(e, c)
	}
	return out
}
