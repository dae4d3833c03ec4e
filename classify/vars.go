package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// joinField joins the fields of an assignment value (no splitting happens
// in assignments).
func joinField(fs []field) field {
	if len(fs) == 0 {
		return field{}
	}
	f := fs[0]
	for _, g := range fs[1:] {
		f.val += " " + g.val
		f.dyn = f.dyn || g.dyn
		f.ifs = f.ifs || g.ifs
		f.src.merge(g.src)
	}
	return f
}

// arrayValue expands the elements of an array literal; ok is false when
// one of them is only known at run time.
func (a *analyzer) arrayValue(ae *syntax.ArrayExpr) ([]string, bool) {
	var out []string
	ok := true
	for _, e := range ae.Elems {
		a.walkNode(e.Index)
		for _, f := range a.expandWord(e.Value) {
			out = append(out, f.val)
			ok = ok && !f.dyn
		}
	}
	return out, ok
}

// setVar records a variable's value; an assignment to a nameref sets the
// variable it names (declare -n r=HOME; r=/ sets HOME).
func (a *analyzer) setVar(name string, v varVal) {
	if a.vars == nil {
		a.vars = map[string]varVal{}
	}
	a.vars[a.refName(name)] = v
}

// refName follows namerefs from name to the variable an assignment to it
// sets. A nameref whose target is only known at run time stays itself
// (its value then is unknown).
func (a *analyzer) refName(name string) string {
	for i := 0; i < 8; i++ {
		t := a.refs[name]
		if t == "" {
			break
		}
		name = t
	}
	return name
}

// assign records a statement-level variable assignment.
func (a *analyzer) assign(e envVar) {
	if t, ok := a.refs[e.name]; ok && t == "" {
		a.setVar(e.name, varVal{}) // a nameref to a name known at run time
		return
	}
	a.setVar(e.name, varVal{val: e.val.val, known: !e.val.dyn, home: e.val.home, ifs: e.val.ifs})
	if codeVars.has(a.refName(e.name)) && !e.val.dyn {
		a.script(e.val.val, nil)
	}
}

// decl walks export/declare/local/readonly/typeset. A nameref declared
// with a literal name (declare -n r=HOME) is recorded: later assignments
// to it set that variable.
func (a *analyzer) decl(d *syntax.DeclClause) {
	var env []envVar
	nameref := isNamerefDecl(d)
	for _, as := range d.Args {
		if as.Name != nil && nameref {
			if a.refs == nil {
				a.refs = map[string]string{}
			}
			t := ""
			if as.Value != nil {
				if f := joinField(a.expandWord(as.Value)); !f.dyn && isName(f.val) && f.val != as.Name.Value {
					t = f.val
				}
			}
			a.refs[as.Name.Value] = t
			if t != "" {
				continue
			}
		}
		switch {
		case as.Name != nil && as.Value != nil:
			e := envVar{name: a.refName(as.Name.Value), val: joinField(a.expandWord(as.Value))}
			a.assign(e)
			env = append(env, e)
		case as.Value != nil:
			a.expandWord(as.Value)
		case as.Name != nil && as.Array != nil:
			if arr, ok := a.arrayValue(as.Array); ok {
				a.setVar(as.Name.Value, varVal{arr: arr, known: true, val: strings.Join(arr, " ")})
			} else {
				a.setVar(as.Name.Value, varVal{})
			}
		case as.Array != nil:
			a.arrayValue(as.Array)
		}
	}
	if len(env) > 0 {
		a.run(&unit{kind: kAssign, env: env})
	}
}

// isNamerefDecl reports whether a declaration makes namerefs (declare -n,
// local -rn, typeset -n, nameref). export -n only removes the export flag.
func isNamerefDecl(d *syntax.DeclClause) bool {
	switch d.Variant.Value {
	case "nameref":
		return true
	case "declare", "typeset", "local":
	default:
		return false
	}
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			if l := as.Value.Lit(); len(l) > 1 && l[0] == '-' && strings.Contains(l, "n") {
				return true
			}
		}
	}
	return false
}
