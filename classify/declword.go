package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// declFlags are what a declaration applies to each name it is given.
type declFlags struct {
	set, unset     uint8
	local, nameref bool
}

// declWord follows NAME=VALUE given to declare, local … as one word
// (declare 'a[1]=v', local 'x=y'), which bash assigns as it would the
// unquoted form: the envVar to assign (ok), after the name's attributes,
// and local scope are recorded (the caller marks it readonly). A nameref is declared
// here; an append (x+=v) or a quoted array value leaves a run-time value
// whose possible value is the text.
func (a *analyzer) declWord(word string, fl declFlags) (envVar, bool) {
	n, val, isSet := strings.Cut(word, "=")
	app := strings.HasSuffix(n, "+")
	n = strings.TrimSuffix(n, "+")
	base, sub, elem := elemTarget(n)
	if !elem {
		base = n
	}
	if !isSet || !isVarName(base) || nameTables.has(a.refName(base)) {
		return envVar{}, false
	}
	if fl.local {
		a.declareLocal(base, false)
	}
	if fl.nameref && !elem && !app {
		lit := &syntax.SglQuoted{Value: val}
		a.declareRef(&syntax.Assign{Name: &syntax.Lit{Value: base}, Value: &syntax.Word{Parts: []syntax.WordPart{lit}}})
		return envVar{}, false
	}
	if (fl.set|fl.unset)&(attrCase|attrInt|attrAssoc) != 0 {
		a.setAttrs(base, fl.set, fl.unset)
	}
	f := field{val: val}
	e := envVar{name: a.refName(base), val: f}
	switch {
	case app || strings.HasPrefix(val, "("):
		e.val.dyn, e.written = true, &f
	case elem:
		a.intAssign(base, f)
		e.elem = a.elemOf(base, a.subscriptOf(base, sub), f)
		e.val.dyn, e.written = true, &f
	}
	return e, true
}

// subscriptOf returns the subscript text of an element of name given in
// a word (printf -v 'a[1+0]', declare 'm[k]=v'): an associative array's
// key as it is, an indexed array's parsed as the arithmetic it is.
func (a *analyzer) subscriptOf(name, sub string) syntax.ArithmExpr {
	if a.isAssoc(name) {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: sub}}}
	}
	return subscriptExpr(sub)
}

// wordLiteral returns the text of a word made only of literal text and
// quotes ('a[1]=v', "-i"); ok is false where an expansion is in it.
func wordLiteral(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "\\*?[~") {
				return "", false // escapes, globs and tildes: left as before
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar || len(p.Parts) > 1 {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsAny(l.Value, "\\") {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
