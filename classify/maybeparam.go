package classify

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A run-time part written ${…} with anything past a plain name (a
// subscript, an operator, indirection) still holds what the variable may
// hold: ${BASH_REMATCH[1]}, ${OPTARG:0}, ${v%x} of a maybe-valued v copy
// its texts, or parts of them. So every parameter expansion left in a
// field's source text carries its variable's texts (paramTexts): exactly
// where the operator keeps or cuts them, as maybeMany (escalate) where it
// could build a text the line never wrote.

// braceRef is a ${…} in a field's source text, parsed.
type braceRef struct {
	p          *syntax.ParamExp
	start, end int
}

// braceRefs finds every ${…} in text that parses as one parameter
// expansion (a plain ${name} too; paramRefs handles those the same way).
func braceRefs(text string) []braceRef {
	var out []braceRef
	for i := 0; i+1 < len(text); i++ {
		if text[i] != '$' || text[i+1] != '{' {
			continue
		}
		k := closingBrace(text, i+1)
		if k < 0 {
			continue
		}
		w, err := syntax.NewParser().Document(strings.NewReader(text[i : k+1]))
		if err != nil || len(w.Parts) != 1 {
			continue
		}
		if p, ok := w.Parts[0].(*syntax.ParamExp); ok {
			out = append(out, braceRef{p: p, start: i, end: k + 1})
			i = k
		}
	}
	return out
}

// closingBrace returns the index of the } closing the { at text[i], or -1
// (a backslash escapes the next byte).
func closingBrace(text string, i int) int {
	depth := 0
	for j := i; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

// paramTexts returns the texts a parameter expansion may give that the
// line wrote (see maybeTexts): the variable's, those of what it names
// (${!v}, ${!prefix@}), then as the operator changes them (opTexts).
func (a *analyzer) paramTexts(p *syntax.ParamExp) []string {
	if p.Param == nil || p.Length || p.NestedParam != nil {
		return nil // ${#v} is a number
	}
	if p.Names != 0 {
		return a.prefixNames(p.Param.Value)
	}
	if p.Excl && p.Index != nil && isAllIndex(p.Index) {
		return nil // ${!a[@]}: the keys
	}
	texts := maybeTexts(a.vars[a.refName(p.Param.Value)])
	if p.Excl {
		texts = a.namedTexts(texts)
	}
	out := opTexts(p, texts)
	if p.Exp != nil && p.Exp.Word != nil && (isDefaultOp(p.Exp.Op) || isAlternateOp(p.Exp.Op)) {
		// ${v:-$OPTARG}: the word's own parameters may be the value.
		syntax.Walk(p.Exp.Word, func(n syntax.Node) bool {
			if q, ok := n.(*syntax.ParamExp); ok {
				out = append(out, a.paramTexts(q)...)
				return false
			}
			return true
		})
	}
	return out
}

// isAllIndex reports whether a subscript is @ or *.
func isAllIndex(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

// namedTexts returns the texts of the variables texts may name (${!v}):
// each name's value, or every element of an array named with a
// subscript. A part listed as "b b[1]" (subNames) names b either way.
func (a *analyzer) namedTexts(texts []string) []string {
	var out []string
	for _, t := range texts {
		if t == maybeMany {
			out = append(out, t)
			continue
		}
		for _, n := range strings.Fields(t) {
			if i := strings.IndexByte(n, '['); i > 0 {
				n = n[:i]
			}
			if isName(n) && n != "" {
				out = append(out, maybeTexts(a.vars[a.refName(n)])...)
			}
		}
	}
	return out
}

// opTexts returns what an operator may make of texts: the texts and every
// part of them for one that cuts (:offset, #, %, a default or a
// subscript keeps or drops them), each case of them for a case operator,
// and maybeMany for one that may build a new text (a pattern
// replacement, ${v@a}, an escape expanded).
func opTexts(p *syntax.ParamExp, texts []string) []string {
	if len(texts) == 0 || p.Slice == nil && p.Repl == nil && p.Exp == nil {
		return texts
	}
	out := slices.Concat(texts, partTexts(plainTexts(texts)))
	switch {
	case p.Repl != nil:
		out = append(out, replTexts(p.Repl, texts)...)
	case p.Exp == nil:
	case caseChangeOps[p.Exp.Op] && p.Exp.Word == nil:
		out = append(out, caseTexts(texts)...)
	case caseChangeOps[p.Exp.Op]:
		out = append(out, maybeMany) // ${v^^[ab]}: some letters changed
	case p.Exp.Op == syntax.OtherParamOps:
		out = append(out, transformTexts(p.Exp.Word.Lit(), texts)...)
	case p.Exp.Word != nil && p.Exp.Word.Lit() != "":
		out = append(out, p.Exp.Word.Lit()) // ${v:-b}: b
	}
	return out
}

// caseChangeOps are the operators that change letters' case.
var caseChangeOps = map[syntax.ParExpOperator]bool{
	syntax.UpperFirst: true, syntax.UpperAll: true, syntax.LowerFirst: true, syntax.LowerAll: true,
}

// plainTexts returns texts without maybeMany (it has no parts).
func plainTexts(texts []string) []string {
	var out []string
	for _, t := range texts {
		if t != maybeMany {
			out = append(out, t)
		}
	}
	return out
}

// caseTexts returns each text in upper and lower case, whole or its first
// letter, with their parts.
func caseTexts(texts []string) []string {
	var out []string
	for _, t := range plainTexts(texts) {
		up, low := strings.ToUpper(t), strings.ToLower(t)
		out = append(out, up, low)
		if t != "" {
			out = append(out, up[:1]+t[1:], low[:1]+t[1:])
		}
	}
	return partTexts(out) // the texts, then the names of their parts
}

// replTexts returns what ${v/x/y} may give: the literal replacement done
// (the first, every one with //, at the start with /#, at the end with
// /%); maybeMany for a pattern or a run-time part.
func replTexts(r *syntax.Replace, texts []string) []string {
	orig, with := "", ""
	if r.Orig != nil {
		orig = r.Orig.Lit()
	}
	if r.With != nil {
		with = r.With.Lit()
	}
	anchor := byte(0)
	if !r.All && orig != "" && (orig[0] == '#' || orig[0] == '%') {
		anchor, orig = orig[0], orig[1:]
	}
	if orig == "" || strings.ContainsAny(orig, "*?[\\") || r.With != nil && with == "" {
		return []string{maybeMany}
	}
	var out []string
	for _, t := range plainTexts(texts) {
		switch {
		case anchor == '#' && strings.HasPrefix(t, orig):
			out = append(out, with+t[len(orig):])
		case anchor == '%' && strings.HasSuffix(t, orig):
			out = append(out, t[:len(t)-len(orig)]+with)
		case anchor != 0:
		case r.All:
			out = append(out, strings.ReplaceAll(t, orig, with))
		default:
			out = append(out, strings.Replace(t, orig, with, 1))
		}
	}
	return partTexts(out) // the texts, then the names of their parts
}

// transformTexts returns what ${v@op} may give beyond texts: the cases
// for U, u and L; nothing new for Q; maybeMany for the rest (an escape
// expanded, attribute letters, a declare line).
func transformTexts(op string, texts []string) []string {
	switch op {
	case "U", "u", "L":
		return caseTexts(texts)
	case "Q":
		return nil
	}
	return []string{maybeMany}
}

// prefixNames returns the names ${!prefix@} may list that the line set:
// the environment may add more, so they stand beside a run-time part.
func (a *analyzer) prefixNames(prefix string) []string {
	var out []string
	for _, n := range a.setNames() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// setNames returns the names of the variables the line set, sorted as
// bash lists them for ${!prefix@} (not $_, the positional parameters or
// the analyzer's own).
func (a *analyzer) setNames() []string {
	var out []string
	for n := range a.vars {
		if n != "_" && isName(n) && n != "" && !isDigit(n[0]) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// addPrefixNames adds ${!prefix@} where the line set names it lists: each
// such name as a field's possible value beside the run-time part (the
// environment may list more). It reports whether it did.
func (a *analyzer) addPrefixNames(b *fieldBuilder, p *syntax.ParamExp) bool {
	names := a.prefixNames(p.Param.Value)
	if len(names) == 0 {
		return false
	}
	for i, n := range names {
		if i > 0 {
			b.split()
		}
		b.addDefaulted(a.source(p), n)
	}
	return true
}
