package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// resolveParam returns p reading the variable bash reads for it where
// the line knows which: through a nameref with a known target (declare -n
// X=Y; "${X%.pub}" is "${Y%.pub}", declare -n r='a[1]'; "$r" is
// "${a[1]}") and through ${!X} where X holds a
// variable's name (X=Y; "${!X}" is "$Y", also through a nameref Y).
// Anything else is returned as it is: ${!X} of a nameref (its target's
// name), ${!X[@]} (keys), ${!X*} (names), a target only known at run time.
func (a *analyzer) resolveParam(p *syntax.ParamExp) *syntax.ParamExp {
	if p.Param == nil || p.Names != 0 || p.NestedParam != nil {
		return p
	}
	name := p.Param.Value
	if p.Excl {
		if p.Index != nil {
			return p
		}
		if _, ref := a.refs[name]; ref {
			return p
		}
		v, set := a.vars[name]
		if set && v.item && v.names != nil {
			return a.indirectJoin(p, v.names)
		}
		if !set || !v.known || v.arr != nil || v.item || !isVarName(v.val) {
			return p
		}
		name = v.val
	}
	target := a.refName(name)
	elem, isElem := strings.CutPrefix(a.refs[target], refElem)
	if target == p.Param.Value && !p.Excl && !isElem {
		return p
	}
	q := *p
	q.Excl = false
	if arr, sub, ok := elemTarget(elem); ok && isElem && p.Index == nil && !p.Excl {
		// declare -n r='a[1]': "$r" reads the element a[1]
		target = arr
		q.Index = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: sub}}}
	}
	q.Param = &syntax.Lit{ValuePos: p.Param.ValuePos, ValueEnd: p.Param.ValueEnd, Value: target}
	return &q
}

// elemTarget splits a nameref's target naming an array element (a[1],
// m[k]) into the array and the subscript's text; ok is false for any
// other target, and for a[@] and a[*], which bash refuses as a target.
func elemTarget(t string) (arr, sub string, ok bool) {
	i := strings.IndexByte(t, '[')
	if i <= 0 || !strings.HasSuffix(t, "]") || !isName(t[:i]) || isDigit(t[0]) {
		return "", "", false
	}
	sub = t[i+1 : len(t)-1]
	if sub == "@" || sub == "*" || sub == "" {
		return "", "", false
	}
	return t[:i], sub, true
}

// indirectJoin returns ${!X} for an X that holds one of several names
// (X=A; [ -n "$CI" ] && X=B): it reads a variable holding the join of
// theirs, as the direct "$X" of such paths is judged (see joinVar: a value
// that is no relative word is its possible value). The variable is one
// of the analyzer's own (its name no shell name), dropped after the
// expansion by expandParam.
func (a *analyzer) indirectJoin(p *syntax.ParamExp, names []string) *syntax.ParamExp {
	var v varVal
	for i, n := range names {
		w, set := a.vars[a.refName(n)]
		if _, ref := a.refs[a.refName(n)]; ref || !set {
			w = varVal{} // from the environment, or any variable
		}
		if i == 0 {
			v = w
		} else if !v.same(w) {
			v = joinVar(v, w)
		}
	}
	a.indirects++
	tmp := indirectPrefix + itoa(a.indirects)
	a.setVarRaw(tmp, v)
	q := *p
	q.Excl = false
	q.Param = &syntax.Lit{ValuePos: p.Param.ValuePos, ValueEnd: p.Param.ValueEnd, Value: tmp}
	return &q
}

// indirectPrefix starts the names of indirectJoin's variables.
const indirectPrefix = "\x00!"

// setVarRaw sets a variable of the analyzer's own, bypassing namerefs and
// attributes.
func (a *analyzer) setVarRaw(name string, v varVal) {
	if a.vars == nil {
		a.vars = map[string]varVal{}
	}
	a.vars[name] = v
}
