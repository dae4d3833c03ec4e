package classify

import "mvdan.cc/sh/v3/syntax"

// resolveParam returns p reading the variable bash reads for it where
// the line knows which: through a nameref with a known target (declare -n
// X=Y; "${X%.pub}" is "${Y%.pub}") and through ${!X} where X holds a
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
		if !set || !v.known || v.arr != nil || v.item || v.val == "" || !isName(v.val) || isDigit(v.val[0]) {
			return p
		}
		name = v.val
	}
	target := a.refName(name)
	if target == p.Param.Value && !p.Excl {
		return p
	}
	q := *p
	q.Excl = false
	q.Param = &syntax.Lit{ValuePos: p.Param.ValuePos, ValueEnd: p.Param.ValueEnd, Value: target}
	return &q
}
