package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Values the shell reads as code after they were stored: the prompt
// operator ${x@P} expands $(…), `…` and $((…)) in x's value, and an
// arithmetic context expands the subscripts in a variable's value (see
// arith.go). A value the line knows is walked for the code it holds; one
// only known at run time is judged as eval of unknown text.

// runtimeCode judges code only known at run time (written src), as eval
// of a run-time value is.
func (a *analyzer) runtimeCode(src string) {
	u := &unit{kind: kCall, cwd: a.cwd, links: a.links, script: &stream{traits: trUnknown}}
	u.setProgram(field{val: "eval"})
	u.args = []field{{val: src, dyn: true}}
	a.emit(u)
}

// expansionCode walks text as the shell expands a prompt or a here-document
// body: only its substitutions run, the rest is data (\u@\h, $HOME).
func (a *analyzer) expansionCode(text string) {
	if !strings.ContainsAny(text, "$`") {
		return
	}
	// A step per walk: a value expanding itself more than once
	// (X='${X@P}${X@P}') would otherwise be walked 2^16 times.
	if !a.charge(1 + len(text)/64) {
		return
	}
	if a.depth >= maxDepth {
		a.limit("nesting deeper than 16 levels")
		return
	}
	w, err := syntax.NewParser().Document(strings.NewReader(text))
	if err != nil {
		a.runtimeCode(text)
		return
	}
	saved := a.src
	a.src = text
	a.depth++
	a.expandWord(w)
	a.depth--
	a.src = saved
}

// isPromptOp reports whether p is ${x@P}.
func isPromptOp(p *syntax.ParamExp) bool {
	return p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && p.Exp.Word.Lit() == "P"
}

// promptExpand judges the code ${x@P} (${!x@P}, ${x[@]@P}) runs: the
// substitutions in the values it expands.
func (a *analyzer) promptExpand(p *syntax.ParamExp) {
	vals, ok := a.paramValues(p)
	if !ok {
		a.runtimeCode(a.source(p))
		return
	}
	for _, v := range vals {
		a.expansionCode(v)
	}
}

// paramValues returns the values a parameter expansion's operator works
// on when the line knows them: a variable's value (an array's first
// element), the elements of ${x[@]} or ${x[N]}, and for ${!x} those of the
// variable x names.
func (a *analyzer) paramValues(p *syntax.ParamExp) ([]string, bool) {
	if p.Param == nil {
		return nil, false
	}
	name := p.Param.Value
	if p.Excl {
		v, ok := a.vars[name]
		if !ok || !v.known || v.arr != nil || !isName(v.val) {
			return nil, false
		}
		name = v.val
	}
	v, ok := a.vars[name]
	if !ok || !v.known {
		return nil, false
	}
	if p.Index == nil {
		if v.arr != nil {
			return v.arr[:min(1, len(v.arr))], true
		}
		return []string{v.val}, true
	}
	idx, ok := a.indexValue(name, p.Index)
	switch {
	case !ok:
		return nil, false
	case v.arr == nil:
		return []string{v.val}, idx == "0" || idx == "@" || idx == "*"
	}
	if elems, ok := pickElems(v.arr, v.keys, name, idx); ok {
		return elems, true
	}
	_, num := atoiSmall(idx)
	return nil, num && v.keys == nil // past the end: empty
}
