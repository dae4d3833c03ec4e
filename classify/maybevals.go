package classify

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Some run-time values may still be a text the line itself wrote: a
// value one path of a branch or loop gave (joinVar), OPTARG after getopts
// on literal words, BASH_REMATCH after [[ 'lit' =~ re ]] (a substring of
// the left side), $_ (the previous command's last word). Word expansion
// treats them as run-time values, as before; arithmetic, which evaluates
// a value's names and subscripts as code, follows each such text
// (varVal.maybe), so a literal x[$(…)] is judged wherever it may land.
// Bash's value is the text or a part of it; a part may be a name the
// whole is not (b in ab), so every name a part may be is followed too
// (partTexts, maybeparts.go).

// maxMaybe bounds the texts a value keeps. Past it, the rest are joined
// into one text, not dropped: any of them may be a name (b, whose value
// is x[$(…)]) as dangerous as a $, and arithmetic scanning the joined
// text follows every name and subscript each holds. A joined text past
// maxValue becomes maybeMany, which escalates arithmetic or a name use
// (fail closed). Plain numbers never count (joinMaybe leaves them out).
const maxMaybe = 64

// maybeMany stands for texts too long to follow; it sorts first.
const maybeMany = "\x00many"

// maybeTexts returns the texts v may hold that arithmetic follows: its
// known value or elements, its possible ones, and its maybe texts.
func maybeTexts(v varVal) []string {
	var out []string
	switch {
	case v.known && v.arr != nil:
		out = append(out, v.arr...)
	case v.known:
		out = append(out, v.val)
	case v.hasDflt:
		out = append(append(out, v.dflt), v.dfltArr...)
	}
	return append(out, v.maybe...)
}

// joinMaybe returns the texts either of two values may hold, deduplicated
// and bounded, plain numbers left out (they evaluate nothing).
func joinMaybe(vs ...varVal) []string {
	var out []string
	for _, v := range vs {
		for _, t := range maybeTexts(v) {
			if t != "" && !allDigits(t) {
				out = append(out, t)
			}
		}
	}
	return boundMaybe(out)
}

// boundMaybe sorts and deduplicates texts, keeping at most maxMaybe: the
// last one past that joins the rest (see maxMaybe).
func boundMaybe(out []string) []string {
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxMaybe {
		rest := strings.Join(out[maxMaybe-1:], " ")
		if len(rest) > maxValue {
			rest = maybeMany
		}
		out = append(out[:maxMaybe-1:maxMaybe-1], rest)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// fieldTexts returns every text a word's value may hold where it is used
// as a name or as arithmetic: its value when known; else the texts of the
// run-time parts it refers to ($v, ${v}, ${!p}: what the line may have
// put there, see maybeTexts) and of its substitutions (field.maybe), each
// alone and in place in the word. Other run-time parts are the
// environment's or a program's, which the line does not judge.
func (a *analyzer) fieldTexts(f field) []string {
	if !f.dyn {
		return []string{f.val}
	}
	var out []string
	for _, r := range paramRefs(f.val) {
		name := r.name
		if r.indirect {
			v, ok := a.vars[name]
			if !ok || !v.known || v.arr != nil {
				continue
			}
			name = v.val
		}
		for _, t := range maybeTexts(a.vars[a.refName(name)]) {
			out = append(out, t, f.val[:r.start]+t+f.val[r.end:])
		}
	}
	for _, r := range braceRefs(f.val) {
		for _, t := range a.paramTexts(r.p) {
			out = append(out, t)
			if t != maybeMany {
				out = append(out, f.val[:r.start]+t+f.val[r.end:])
			}
		}
	}
	if f.maybe != nil {
		out = append(out, *f.maybe...)
	}
	return boundMaybe(out)
}

// addMaybe returns a field's maybe texts (see field.maybe) with texts
// added, as a new list.
func addMaybe(m *[]string, texts ...string) *[]string {
	var out []string
	if m != nil {
		out = append(out, *m...)
	}
	for _, t := range texts {
		if t != "" {
			out = append(out, t)
		}
	}
	out = boundMaybe(out)
	return &out
}

// paramRef is a plain parameter reference in a word's source text.
type paramRef struct {
	name       string
	indirect   bool // ${!name}
	start, end int
}

// paramRefs finds $name, ${name} and ${!name} in text (a run-time part
// keeps its source there).
func paramRefs(text string) []paramRef {
	var out []paramRef
	for i := 0; i < len(text); i++ {
		if text[i] != '$' || i+1 >= len(text) {
			continue
		}
		j, braced, indirect := i+1, text[i+1] == '{', false
		if braced {
			j++
			if j < len(text) && text[j] == '!' {
				j, indirect = j+1, true
			}
		}
		k := j
		for k < len(text) && isNameByte(text[k]) {
			k++
		}
		if k == j || isDigit(text[j]) && k > j+1 {
			continue
		}
		name := text[j:k]
		if braced {
			if k >= len(text) || text[k] != '}' {
				continue
			}
			k++
		}
		out = append(out, paramRef{name: name, indirect: indirect, start: i, end: k})
		i = k - 1
	}
	return out
}

// getoptsArg records OPTARG after getopts: one of the words after the
// optstring and name, or of the positional parameters the line set when
// there are none (getopts a: o -a 'x[…]'; set -- -a 'x[…]'; getopts a: o).
func (a *analyzer) getoptsArg(args []field) {
	if len(args) > 0 && args[0].val == "--" {
		args = args[1:]
	}
	var texts []string
	if len(args) > 2 {
		for _, f := range args[2:] {
			if !f.dyn {
				texts = append(texts, f.val)
			}
		}
	} else if v, ok := a.vars["@"]; ok {
		texts = maybeTexts(v)
	}
	if m := joinMaybe(varVal{maybe: partTexts(texts)}); m != nil {
		a.setVar("OPTARG", varVal{maybe: m})
	}
}

// reMatch records BASH_REMATCH after a [[ ]] holding =~ tests: each
// element a substring of a left side the line knows.
func (a *analyzer) reMatch(x syntax.TestExpr) {
	var texts []string
	syntax.Walk(x, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryTest); ok && b.Op == syntax.TsReMatch {
			if w, ok := b.X.(*syntax.Word); ok {
				for _, f := range a.arithFields(w) {
					if !f.dyn {
						texts = append(texts, f.val)
					}
				}
			}
		}
		return true
	})
	a.setVar("BASH_REMATCH", varVal{maybe: joinMaybe(varVal{maybe: partTexts(texts)})})
}

// lastWord records $_ after a command: its last word. A plain number (or
// a word only known at run time) is no text worth following.
func (a *analyzer) lastWord(u *unit) {
	last := field{val: u.name, dyn: u.dynName}
	if len(u.args) > 0 {
		last = u.args[len(u.args)-1]
	}
	m := []string(nil)
	if !last.dyn {
		m = joinMaybe(varVal{maybe: []string{last.val}})
	}
	a.setLast(m)
}

// setLast sets $_'s possible texts.
func (a *analyzer) setLast(m []string) {
	if _, set := a.vars["_"]; m == nil && !set {
		return
	}
	if a.vars == nil {
		a.vars = map[string]varVal{}
	}
	a.vars["_"] = varVal{maybe: m} // not setVar: that makes $_ a bare run-time value
}

// declLastWord records $_ after a declaration clause: its last word after
// expansion, as for a command, whether or not the builtin succeeded
// (local outside a function). A NAME=VALUE word is the whole word
// (declare a='x[…]' leaves a=x[…], which $((_)) evaluates as an
// assignment); val is the value the walk expanded (nil: none). A
// compound array assignment leaves the name in bash 5.2; the word's
// source is kept too, in case another version keeps the word. Parts only
// known at run time keep the texts the line may have put there
// (fieldTexts), never fewer.
func (a *analyzer) declLastWord(d *syntax.DeclClause, val *field) {
	if len(d.Args) == 0 {
		a.setLast(joinMaybe(varVal{maybe: []string{d.Variant.Value}}))
		return
	}
	as := d.Args[len(d.Args)-1]
	var texts []string
	switch {
	case as.Name == nil && val != nil:
		texts = a.fieldTexts(*val)
	case as.Name == nil:
		texts = []string{a.srcSpan(as, as)} // an array word: its source
	default:
		name := as.Name.Value
		if as.Index != nil {
			name += "[" + a.srcSpan(as.Index, as.Index) + "]"
		}
		texts = []string{name}
		op := "="
		if as.Append {
			op = "+="
		}
		switch {
		case val != nil:
			texts = a.fieldTexts(field{val: name + op + val.val, dyn: val.dyn, maybe: val.maybe})
		case as.Value != nil || as.Array != nil:
			texts = append(texts, a.srcSpan(as, as)) // declare -n r=…, a=(…)
		}
	}
	a.setLast(joinMaybe(varVal{maybe: texts}))
}
