package classify

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arrayElems resolves ${x[@]}, ${x[*]}, ${x[N]}, $@, $* and $N when the
// array or the positional parameters were set literally on this line.
func (a *analyzer) arrayElems(p *syntax.ParamExp) ([]string, bool) {
	name, idx, ok := a.arrayRef(p)
	v, set := a.vars[name]
	if !ok || !set || !v.known || v.arr == nil {
		return nil, false
	}
	return pickElems(v.arr, v.keys, name, idx)
}

// arrayDefaults resolves the same references to an array the line gave
// elements only known at run time, one of them a parameter operator's
// word (a=(${X:-~/.ssh/id_rsa})): the elements' possible values (see
// varVal.dfltArr).
func (a *analyzer) arrayDefaults(p *syntax.ParamExp) ([]string, bool) {
	name, idx, ok := a.arrayRef(p)
	v, set := a.vars[name]
	if !ok || !set || !v.hasDflt || v.dfltArr == nil {
		return nil, false
	}
	if elems, ok := pickElems(v.dfltArr, nil, name, idx); ok {
		return elems, true
	}
	if n, ok := atoiSmall(idx); ok && n >= len(v.dfltArr) {
		return []string{v.dflt}, true // past the elements modelled: any of them (see maxPadding)
	}
	return nil, false
}

// arrayRef returns the array and the index a plain element reference
// names (${x[1]}, ${x[@]}, $x, $2: "@" and "2"); ok is false for an
// operator or an index only known at run time.
func (a *analyzer) arrayRef(p *syntax.ParamExp) (name, idx string, ok bool) {
	if p.Param == nil || p.Excl || p.Length || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 {
		return "", "", false
	}
	name = p.Param.Value
	if p.Index != nil {
		if idx, ok = a.indexValue(name, p.Index); !ok {
			return "", "", false // ${A[$i]}, ${A[$(cmd)]}: only known at run time
		}
	}
	if allDigits(name) && name != "0" {
		idx, name = name, "@"
	}
	if name == "*" {
		name = "@"
	}
	return name, idx, true
}

// pickElems returns the elements of arr (with keys, see arraykeys.go) an
// index selects ("" for $x, the first; for $@, all of them; -1 the last).
func pickElems(arr, keys []string, name, idx string) ([]string, bool) {
	switch {
	case idx == "@" || idx == "*" || name == "@" && idx == "":
		return arr, true
	case idx == "":
		idx = "0"
	}
	if keys != nil {
		return pickKeyed(arr, keys, idx)
	}
	n, ok := atoiSmall(idx)
	switch {
	case name == "@":
		n-- // $1 is the first element
	case n < 0:
		n += len(arr) // ${a[-1]}: counted back from the end
	}
	if !ok || n < 0 || n >= len(arr) {
		return nil, false
	}
	return arr[n : n+1], true
}

// indexValue returns the value of name's index when the line knows it:
// a literal (${A[1]}, ${A[@]}, ${A[-1]}), or $((N)), $i, $((i)) with N a
// number and i a variable the line set to one. Anything else is only known
// at run time. An indexed array's subscript is arithmetic, so a number is
// given in decimal (${a[010]} is ${a[8]}); an associative array's key is
// its text (${m[010]} is the element keyed "010").
func (a *analyzer) indexValue(name string, x syntax.ArithmExpr) (string, bool) {
	k, ok := a.indexText(x)
	if !ok || a.isAssoc(name) {
		return k, ok
	}
	return indexNumber(k)
}

// indexText returns the text of an index the line knows (see indexValue),
// before an indexed array's arithmetic reads it.
func (a *analyzer) indexText(x syntax.ArithmExpr) (string, bool) {
	if u, ok := x.(*syntax.UnaryArithm); ok {
		n, ok := arithLiteral(u, 0)
		return itoa(n), ok
	}
	w, ok := x.(*syntax.Word)
	if !ok {
		return "", false
	}
	if l := w.Lit(); l != "" || len(w.Parts) == 0 {
		return literalKey(l)
	}
	if quotedLit(w) {
		return literalKey(a.source(w)) // m['a b'], m["k"]: quote removal only
	}
	if len(w.Parts) != 1 {
		return "", false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.ArithmExp:
		// $((010)), $((i)): the number in decimal
		if v, ok := p.X.(*syntax.Word); ok {
			text := v.Lit()
			if text != "" && !isDigit(text[0]) {
				text, ok = a.numberVar(text)
			}
			if n, num := bashInt(text); ok && num {
				return itoa(n), true
			}
		}
	case *syntax.ParamExp:
		if p.Param != nil && !p.Excl && !p.Length && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil && p.Names == 0 {
			return a.numberVar(p.Param.Value)
		}
	}
	return "", false
}

// numberVar returns the value of the variable name when the line set it
// to a number.
func (a *analyzer) numberVar(name string) (string, bool) {
	if v, ok := a.vars[name]; ok && isVarName(name) && v.known && v.arr == nil && allDigits(v.val) {
		return v.val, true
	}
	return "", false
}

// indexNumber returns an indexed array's subscript text k as bash
// evaluates it: a number (010 octal, 0x1f, 2#101, signed, spaced) in
// decimal; ok is false for one bash refuses (08). Other text (@, *, a
// name) is returned as it is.
func indexNumber(k string) (string, bool) {
	t := strings.TrimLeft(strings.TrimSpace(k), "+-")
	if t == "" || !isDigit(t[0]) {
		return k, true
	}
	n, ok := indexInt(k)
	return itoa(n), ok
}

// indexInt returns the value of an indexed array's literal subscript
// text (see indexNumber).
func indexInt(k string) (int, bool) {
	t := strings.TrimSpace(k)
	neg := false
	for t != "" && (t[0] == '-' || t[0] == '+') {
		neg = neg != (t[0] == '-')
		t = strings.TrimSpace(t[1:])
	}
	n, ok := bashInt(t)
	if neg {
		n = -n
	}
	return n, ok
}

// quotedLit reports whether w is only literal text and quotes ('k', "k",
// k'q'), no expansion.
func quotedLit(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
			if sq, ok := p.(*syntax.SglQuoted); ok && sq.Dollar {
				return false // $'…' decodes escapes
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return false
			}
			for _, q := range p.Parts {
				if _, lit := q.(*syntax.Lit); !lit {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// arrayValue expands the elements of an array literal given to name; ok
// is false when one of them is only known at run time. alts then holds
// each element's possible value (see field.possible) when one of them
// holds a parameter operator's word, else nil. Subscripts ([x]=v) are
// arithmetic, and so are the values of an integer array. keys are the
// elements' keys (see arraykeys.go), the first without a subscript
// getting the index start. maybe holds the texts the line may have put in
// elements only known at run time (v=("${BASH_REMATCH[@]}"), fieldTexts),
// for arithmetic.
func (a *analyzer) arrayValue(name string, ae *syntax.ArrayExpr, start int) (arr, alts, keys, maybe []string, ok bool) {
	ok = true
	withAlt := false
	kt := keyTrack{assoc: name != "" && a.isAssoc(name), next: start, keyed: start != 0}
	for _, e := range ae.Elems {
		a.walkNode(e.Index)
		a.subscript(name, e.Index)
		fs := a.expandWord(e.Value)
		if e.Index != nil && len(fs) > 1 {
			fs = []field{joinField(fs)} // [k]=$x is an assignment: no splitting
		}
		a.intAssign(name, fs...)
		idx, idxOK := "", false
		if e.Index != nil {
			idx, idxOK = a.indexValue(name, e.Index)
		}
		for _, f := range fs {
			arr = append(arr, f.val)
			alts = append(alts, f.possible())
			kt.add(idx, idxOK, e.Index != nil)
			ok = ok && !f.dyn
			withAlt = withAlt || f.hasAlt
			if f.dyn {
				maybe = append(maybe, a.fieldTexts(f)...)
			}
		}
		if e.Index != nil {
			withAlt = false // which element holds what is left to run time
		}
	}
	if ok || !withAlt {
		alts = nil
	}
	return arr, alts, kt.result(), joinMaybe(varVal{maybe: maybe}), ok
}

// arrayAssign returns the value name=(…) (name+=(…) with appendTo) gives
// name: known elements, or elements only known at run time that may have
// the defaults of their parameter operators (varVal.dfltArr), as a
// scalar assignment keeps them (f=${X:-~/.ssh/id_rsa}). ok is false when
// the value is only known at run time.
func (a *analyzer) arrayAssign(name string, ae *syntax.ArrayExpr, appendTo bool) (varVal, bool) {
	var old varVal // v+=(…): the texts v held stay
	if appendTo {
		old = varVal{maybe: a.vars[a.refName(name)].maybe}
	}
	v, ok, maybe := a.arrayAssignVal(name, ae, appendTo)
	if !v.known {
		v.maybe = joinMaybe(varVal{maybe: maybe}, old)
	}
	return v, ok
}

// arrayAssignVal is arrayAssign without the maybe texts, returned apart.
func (a *analyzer) arrayAssignVal(name string, ae *syntax.ArrayExpr, appendTo bool) (varVal, bool, []string) {
	var oldKeys []string
	start := 0
	if old, known, _ := a.arrayBefore(name); appendTo && known {
		oldKeys = a.vars[a.refName(name)].keys
		start = nextIndex(old, oldKeys)
	}
	arr, alts, keys, maybe, ok := a.arrayValue(name, ae, start)
	if appendTo {
		old, oldKnown, oldOK := a.arrayBefore(name)
		switch {
		case !a.spendValue(len(old) * elemCost / 2):
			return varVal{}, false, maybe // copying the old elements: a line appending thousands of times
		case !oldOK || !ok && alts == nil:
			return varVal{}, false, maybe
		case ok && oldKnown:
			if oldKeys = a.vars[a.refName(name)].keys; keys != nil || oldKeys != nil {
				keys = compactKeys(append(slices.Clone(denseKeys(old, oldKeys)), denseKeys(arr, keys)...))
			}
			arr = append(slices.Clone(old), arr...)
		case ok:
			alts, ok = append(slices.Clone(old), arr...), false
		default:
			alts = append(slices.Clone(old), alts...)
		}
	}
	switch {
	case ok:
		return varVal{arr: arr, keys: keys, known: true, val: strings.Join(arr, " ")}, true, nil
	case alts != nil:
		return varVal{dflt: strings.Join(alts, " "), hasDflt: true, dfltArr: alts}, true, maybe
	}
	return varVal{}, false, maybe
}

// arrayBefore returns the elements of name that name+=(…) appends to:
// the known ones (known), or their possible values; ok is false when the
// line did not know them.
func (a *analyzer) arrayBefore(name string) (old []string, known, ok bool) {
	v, set := a.vars[a.refName(name)]
	switch {
	case !set:
		return nil, false, false
	case v.known && v.arr == nil:
		return []string{v.val}, true, true
	case v.known:
		return v.arr, true, true
	case v.hasDflt && v.dfltArr != nil:
		return v.dfltArr, false, true
	case v.hasDflt:
		return []string{v.dflt}, false, true
	}
	return nil, false, false
}
