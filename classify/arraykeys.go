package classify

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Arrays whose elements were given by subscript (a=([3]=x), declare -A
// m=([k]=v), m[k]=v) keep each element's key beside it (varVal.keys, nil
// for an indexed array's elements 0, 1, … in order): ${m[k]} and ${a[3]}
// read the element the key names, ${a[-1]} the one at the highest index.
// A key only known at run time (a=([$i]=x)) is keyUnknown: a read it may
// answer is left to run time.

// keyUnknown stands for a key only known at run time.
const keyUnknown = "\x00?"

// keyTrack computes the keys of an array literal's elements: an indexed
// array's element without a subscript follows the previous one's.
type keyTrack struct {
	assoc bool
	next  int // the index of the next element without a subscript; < 0: unknown
	keys  []string
	keyed bool // a subscript or a start past 0: the keys are not 0, 1, …
}

// add records the key of an element: its subscript's value idx (ok when
// the line knows it), or, when it has none (sub false), the next index.
func (k *keyTrack) add(idx string, ok, sub bool) {
	key := keyUnknown
	switch {
	case sub && k.assoc:
		if ok {
			key = idx
		}
	case sub:
		k.next = -1
		if n, isNum := indexInt(idx); ok && isNum && n >= 0 { // [010]=v is [8]=v
			key, k.next = itoa(n), n+1
		}
	case !k.assoc && k.next >= 0:
		key = itoa(k.next)
		k.next++
	}
	k.keyed = k.keyed || sub || k.assoc
	k.keys = append(k.keys, key)
}

// result returns the keys, or nil where they are 0, 1, … in order.
func (k *keyTrack) result() []string {
	if !k.keyed {
		return nil
	}
	return k.keys
}

// denseKeys returns the keys of arr's elements: keys, or 0, 1, … for an
// array that has none.
func denseKeys(arr, keys []string) []string {
	if keys != nil {
		return keys
	}
	out := make([]string, len(arr))
	for i := range arr {
		out[i] = itoa(i)
	}
	return out
}

// nextIndex returns the index an element appended without a subscript
// gets: one past the highest; -1 when a key is not a known index.
func nextIndex(arr, keys []string) int {
	if keys == nil {
		return len(arr)
	}
	next := 0
	for _, k := range keys {
		n, ok := atoiSmall(k)
		if !ok || n < 0 {
			return -1
		}
		next = max(next, n+1)
	}
	return next
}

// pickKeyed returns the element of a keyed array the subscript idx names:
// the last one given that key, an indexed array's negative index counted
// back from one past the highest. ok is false when a key only known at
// run time may name it, or no element has the key.
func pickKeyed(arr, keys []string, idx string) ([]string, bool) {
	if len(keys) != len(arr) {
		return nil, false
	}
	i := lastIndex(keys, idx)
	if n, num := atoiSmall(idx); i < 0 && num {
		if n < 0 {
			if next := nextIndex(arr, keys); next >= 0 {
				n += next
			}
		}
		i = lastIndex(keys, itoa(n))
	}
	if i < 0 || slices.Contains(keys[i+1:], keyUnknown) {
		return nil, false // none, or a later element may have replaced it
	}
	return arr[i : i+1], true
}

// lastIndex returns the index of the last key k in keys, or -1.
func lastIndex(keys []string, k string) int {
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i] == k {
			return i
		}
	}
	return -1
}

// elemAssign is an element assignment (b[k]=v) whose subscript the line
// knows.
type elemAssign struct {
	idx string
	val field
}

// elemOf returns the element assignment name[idx]=f, or nil when its
// subscript or its value is only known at run time.
func (a *analyzer) elemOf(name string, idx syntax.ArithmExpr, f field) *elemAssign {
	k, ok := a.elemKey(name, idx) // keyTrack reads an indexed array's as a number
	if !ok || f.dyn || k == "@" || k == "*" {
		return nil
	}
	return &elemAssign{idx: k, val: f}
}

// elemAssigned returns the array name[k]=v leaves: the line's known array
// or scalar (its element 0), or for an associative array the line has not
// set, a new one, with the element added. ok is false where the result is
// only known at run time.
func (a *analyzer) elemAssigned(name string, e *elemAssign) (varVal, bool) {
	name = a.refName(name)
	if _, ref := a.refs[name]; ref {
		return varVal{}, false
	}
	old, set := a.vars[name]
	assoc := a.isAssoc(name)
	var arr, keys []string
	switch {
	case !set && assoc:
	case set && old.known && old.arr != nil:
		arr, keys = old.arr, denseKeys(old.arr, old.keys)
	case set && old.known:
		arr, keys = []string{old.val}, []string{"0"}
	default:
		return varVal{}, false
	}
	idx := e.idx
	if n, num := indexInt(idx); !assoc && num && n < 0 {
		// a[-1]=v: counted back from one past the highest index
		if idx, num = negativeKey(n, keys); !num {
			return varVal{}, false
		}
	}
	k := keyTrack{assoc: assoc}
	k.add(idx, true, true)
	if k.keys[0] == keyUnknown {
		return varVal{}, false
	}
	// The value joined below is charged (and the deadline checked with
	// it), as a+=(…) charges its copy: thousands of m[k]=v in one command
	// would otherwise take time quadratic in their number, unchecked.
	if !a.spendValue(len(old.val) + 1) {
		return varVal{}, false
	}
	arr = append(slices.Clone(arr), e.val.val)
	keys = append(slices.Clone(keys), k.keys[0])
	return varVal{arr: arr, keys: keys, known: true, val: strings.Join(arr, " ")}, true
}

// compactKeys returns nil for the keys 0, 1, … in order, else keys.
func compactKeys(keys []string) []string {
	for i, k := range keys {
		if k != itoa(i) {
			return keys
		}
	}
	return nil
}

// unsetElem follows unset 'name[idx]': the element the subscript names is
// removed (a negative index counting back from one past the highest), so
// a later ${a[-1]} reads the one before it. Where the line cannot tell
// which element goes (a run-time subscript or key), the array becomes a
// run-time value; [@] and [*] remove the whole array.
func (a *analyzer) unsetElem(f field) {
	word := f.val
	i := strings.IndexByte(word, '[')
	if i <= 0 || !strings.HasSuffix(word, "]") || !isName(word[:i]) {
		return
	}
	name, idx := a.refName(word[:i]), word[i+1:len(word)-1]
	if _, ref := a.refs[name]; ref {
		a.clobberVars()
		return
	}
	old, set := a.vars[name]
	if !set {
		return
	}
	if f.dyn {
		a.setVar(name, varVal{})
		return
	}
	if idx == "@" || idx == "*" {
		delete(a.vars, name)
		return
	}
	v, ok := unsetKey(old, idx, a.isAssoc(name))
	if !ok {
		v = varVal{}
	}
	a.setVar(name, v)
}

// unsetKey returns old without the element whose key is idx (an
// associative array's literal key, or an indexed array's number); ok is
// false when which one goes is only known at run time.
func unsetKey(old varVal, idx string, assoc bool) (varVal, bool) {
	if !old.known {
		return varVal{}, false
	}
	arr, keys := old.arr, denseKeys(old.arr, old.keys)
	if arr == nil {
		arr, keys = []string{old.val}, []string{"0"}
	}
	if assoc {
		k, ok := literalKey(idx)
		if !ok {
			return varVal{}, false
		}
		idx = k
	} else {
		n, num := indexInt(idx) // 'a[010]' is a[8]
		if !num {
			return varVal{}, false
		}
		if n < 0 {
			next := nextIndex(arr, keys)
			if next < 0 || n+next < 0 {
				return varVal{}, false
			}
			n += next
		}
		idx = itoa(n)
	}
	if slices.Contains(keys, keyUnknown) {
		return varVal{}, false
	}
	var outA, outK []string
	for j, k := range keys {
		if k != idx {
			outA, outK = append(outA, arr[j]), append(outK, k)
		}
	}
	if outA == nil {
		outA = []string{}
	}
	if !assoc {
		outK = compactKeys(outK)
	}
	return varVal{arr: outA, keys: outK, known: true, val: strings.Join(outA, " ")}, true
}

// literalKey returns the key a subscript's text names after quote removal
// (m['a b'], m["k"], m[a\ b]), as bash reads an associative array's key;
// ok is false where an expansion in it is only known at run time.
func literalKey(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '$', '`':
			return "", false
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '$' || s[j] == '`' {
					return "", false
				}
				if s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\"\\$`", s[j+1]) >= 0 {
					j++
					b.WriteByte(s[j])
					continue
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return "", false
			}
			i = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}
