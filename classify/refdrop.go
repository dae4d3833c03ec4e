package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A nameref stops being one on declare +n r (typeset, local too) and on
// unset -n r: r is then a plain variable, and assignments, word expansion
// and arithmetic all use r itself, no longer its old target. declare +n
// leaves r holding the target's name (its value all along); unset -n
// unsets r.

// dropsNameref reports whether a declaration takes the nameref attribute
// away from the names it is given (declare +n r).
func dropsNameref(d *syntax.DeclClause) bool {
	switch d.Variant.Value {
	case "declare", "typeset", "local":
	default:
		return false
	}
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			if l := as.Value.Lit(); len(l) > 1 && l[0] == '+' && strings.Contains(l, "n") {
				return true
			}
		}
	}
	return false
}

// unsetsNameref reports whether unset's arguments hold -n: it unsets the
// namerefs themselves, not the variables they name.
func unsetsNameref(args []field) bool {
	for _, f := range args {
		if f.val == "--" || !strings.HasPrefix(f.val, "-") {
			return false
		}
		if strings.Contains(f.val, "n") {
			return true
		}
	}
	return false
}

// dropRef makes the nameref name a plain variable: keep keeps the
// target's name as its value (declare +n), else it is unset (unset -n).
// A target only known at run time leaves a run-time value.
func (a *analyzer) dropRef(name string, keep bool) {
	t, ok := a.refs[name]
	if !ok {
		return
	}
	delete(a.refs, name)
	if a.vars == nil {
		a.vars = map[string]varVal{}
	}
	switch {
	case !keep || t == refUnset:
		delete(a.vars, name)
	case t == refRuntime || t == refUnsetEnv:
		a.vars[name] = varVal{}
	default:
		a.vars[name] = varVal{val: strings.TrimPrefix(t, refElem), known: true}
	}
}
