package classify

import (
	"maps"
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
		if g.hasAlt && !f.hasAlt {
			f.alt, f.hasAlt = f.possible(), true
		}
		if f.hasAlt {
			f.alt += " " + g.possible()
		}
		f.val += " " + g.val
		f.dyn = f.dyn || g.dyn
		f.ifs = f.ifs || g.ifs
		if g.maybe != nil {
			f.maybe = addMaybe(f.maybe, *g.maybe...)
		}
		f.src.merge(g.src)
	}
	return f
}

// What analyzer.refs holds for a nameref that names no known variable.
const (
	refRuntime  = ""        // its target is only known at run time: any variable
	refUnset    = "\x00"    // declared without a target: the first value it is given names it
	refUnsetEnv = "\x00env" // the same, but the environment may already have given it one
	refElem     = "\x00["   // prefix: an array element (a[1]); read and written through
)

// setVar records a variable's value; an assignment to a nameref sets the
// variable it names (declare -n r=HOME; r=/ sets HOME). The first value
// given to a nameref declared without a target names its target, as in
// bash (declare -n r; r=HOME; r=/ sets HOME). An assignment through a
// nameref whose target is only known at run time may set any variable:
// the line's variables, HOME among them, become run-time values that may
// still hold what the line gave them (clobberVarsKeep). One through a
// nameref to an element (r='a[-1]') is that element's write.
func (a *analyzer) setVar(name string, v varVal) {
	if a.vars == nil {
		a.vars = map[string]varVal{}
	}
	name = a.refName(name)
	if name == "_" {
		v = varVal{} // every command sets $_ to its last word
	}
	switch t, ref := a.refs[name]; {
	case ref && (t == refUnset || t == refUnsetEnv):
		if t == refUnsetEnv {
			// Already bound to a variable of the environment? Then v
			// went to that one, and every other kept its value: each
			// may still hold what the line gave it.
			a.clobberVarsKeep()
		}
		if v.known && v.arr == nil {
			a.nameText(field{val: v.val}) // r='a[$(…)]': every use expands it
		}
		a.refs[name] = refTarget(v, name)
		return
	case ref && strings.HasPrefix(t, refElem):
		// declare -n r='a[-1]'; r=v is a[-1]=v: the element bash
		// computes, or the array's texts and v as possible values.
		a.builtinElems([]string{t[len(refElem):]}, map[string]varVal{t[len(refElem):]: v})
		return
	case ref:
		// It may set any variable, and each other one keeps what the
		// line gave it: a possible value arithmetic still follows. A
		// name that may be a nameref or an integer (o=-n or -i; declare
		// $o x) may evaluate v as arithmetic.
		if a.attrs[name]&attrInt != 0 {
			a.intValue(v)
		}
		a.clobberVarsKeep()
		return
	}
	if at, ok := a.attrs[name]; ok {
		if at&attrInt != 0 && at&attrReadonly == 0 {
			v = a.intValue(v)
		}
		if v, ok = withAttrs(v, at); !ok {
			return
		}
	}
	a.vars[name] = v
}

// refTarget returns what a nameref given the value v refers to.
func refTarget(v varVal, self string) string {
	switch {
	case !v.known || v.arr != nil || v.item:
		return refRuntime
	case v.val == "":
		return refUnset
	case isVarName(v.val) && v.val != self:
		return v.val
	}
	if _, _, ok := elemTarget(v.val); ok {
		return refElem + v.val
	}
	return refRuntime // an error that may stop the script
}

// clobberVars makes every variable the line knows, and those the analyzer
// gives a meaning of their own (HOME, PWD, SHELL, BASH, CDPATH), values
// only known at run time.
func (a *analyzer) clobberVars() {
	if a.vars == nil {
		a.vars = map[string]varVal{}
	}
	for n := range a.vars {
		a.vars[n] = varVal{}
	}
	for n := range symbolicSamples {
		a.vars[n] = varVal{}
	}
	a.vars["CDPATH"] = varVal{}
}

// clobberVarsKeep is clobberVars where one variable only known at run
// time was set: every variable keeps what the line gave it as a possible
// value (see varVal.dflt), which arithmetic still follows.
func (a *analyzer) clobberVarsKeep() {
	old := maps.Clone(a.vars)
	a.clobberVars()
	for n, v := range old {
		if _, sym := symbolicSamples[n]; !sym && n != "CDPATH" && (v.known || v.hasDflt || v.maybe != nil) {
			a.vars[n] = v.possible()
		}
	}
}

// possible returns v, a value the line gave, as a run-time value that may
// be it (see varVal.dflt); a run-time value stays as it is.
func (v varVal) possible() varVal {
	if !v.known {
		return v
	}
	return varVal{dflt: v.val, hasDflt: true, dfltArr: v.arr}
}

// refName follows namerefs from name to the variable an assignment to it
// sets. A nameref with no known target stays itself.
func (a *analyzer) refName(name string) string {
	for i := 0; i < 8; i++ {
		t := a.refs[name]
		if t == refRuntime || strings.HasPrefix(t, "\x00") { // unknown, unset, an element
			break
		}
		name = t
	}
	return name
}

// assign records a statement-level variable assignment.
func (a *analyzer) assign(e envVar) {
	if e.name == "POSIXLY_CORRECT" {
		a.posix = posixOn // bash enters posix mode
	}
	if e.elem != nil {
		if v, ok := a.elemAssigned(e.name, e.elem); ok {
			a.setVar(e.name, v)
			return
		}
	}
	_, ref := a.refs[e.name] // a nameref with no known target
	v := varVal{val: e.val.val, known: !e.val.dyn, home: e.val.home, ifs: e.val.ifs}
	switch {
	case e.written != nil:
		v = a.elemUnknown(e.name, *e.written) // a[$i]=v: which element is only known at run time
	case e.val.dyn && e.val.hasAlt:
		v = varVal{dflt: e.val.alt, hasDflt: true} // f=${X:-~/.ssh/id_rsa}: the run-time value, or the default
	}
	if e.written == nil && e.val.dyn {
		// i=$(printf "$F" 'x[…]'), i=$v with v a maybe value: arithmetic
		// follows what it may hold.
		v.maybe = joinMaybe(varVal{maybe: a.fieldTexts(e.val)})
		v.tree = e.val.src.tree // x=$(find ~)
	}
	a.setVar(e.name, v)
	if e.name == "GLOBIGNORE" && (e.val.dyn || e.val.val != "") {
		a.dotglob = true // a non-empty GLOBIGNORE turns dotglob on
	}
	if !ref && isCodeVar(e.name) && !e.val.dyn {
		a.script(e.val.val, nil)
	}
	if !ref {
		a.vimInitCode(nil, []envVar{e})
	}
}

// decl walks export/declare/local/readonly/typeset. A nameref declared
// (declare -n r=HOME) is recorded: later assignments to it set the
// variable it names.
func (a *analyzer) decl(d *syntax.DeclClause) {
	if d.Variant.Value == "local" && a.frame == nil {
		// local outside a function fails in bash and dash ("can only
		// be used in a function") after expanding its words, assigning
		// nothing: X=~/.ssh; local X=/tmp/x; rm -rf "$X" deletes
		// ~/.ssh. zsh and ksh make it a global, and a trap's code may
		// run in a function: either, there.
		if a.noLocal && a.hooks == 0 {
			a.failedDecl(d)
			return
		}
		a.maybe(func() stream { a.declAssign(d); return stream{} })
		return
	}
	a.declAssign(d)
}

// failedDecl walks a declaration that fails: its words are expanded, with
// what their substitutions do, and nothing is assigned.
func (a *analyzer) failedDecl(d *syntax.DeclClause) {
	var last *field
	for _, as := range d.Args {
		last = nil
		a.walkNode(as.Index)
		switch {
		case as.Value != nil:
			f := joinField(a.expandWord(as.Value))
			last = &f
		case as.Array != nil:
			a.arrayValue("", as.Array, 0)
		}
	}
	a.declLastWord(d, last)
}

// declAssign walks a declaration that runs.
func (a *analyzer) declAssign(d *syntax.DeclClause) {
	var env []envVar
	words := declWords(d)
	spec := readDeclOpts(d.Variant.Value, words)
	nameref, set, unset, dynOpt := spec.nameref, spec.set, spec.unset, spec.dyn
	drop, dropped := declDrop(d.Variant.Value, words, a.frame != nil)
	local := a.frame != nil && isDeclVariant(d.Variant.Value) && !spec.global
	var last *field // the last word's value after expansion, for $_
	for _, as := range d.Args {
		last = nil
		if as.Name != nil && local {
			// An option only known at run time may be -g.
			a.declareLocal(as.Name.Value, dynOpt)
		}
		if as.Name != nil && nameref {
			a.declareRef(as)
			continue
		}
		if as.Name != nil && (set|unset)&(attrCase|attrInt|attrAssoc) != 0 {
			a.setAttrs(as.Name.Value, set, unset)
		}
		switch {
		case as.Name != nil && nameTables.has(a.refName(as.Name.Value)):
			e := envVar{name: a.refName(as.Name.Value), val: a.tableAssign(a.refName(as.Name.Value), as)}
			v := e.val
			last = &v
			e.val.dyn = true
			a.assign(e)
			env = append(env, e)
		case as.Name != nil && as.Value != nil:
			e := envVar{name: a.refName(as.Name.Value), val: a.expandAssign(as.Value)}
			v := e.val
			last = &v
			a.walkNode(as.Index)
			a.subscript(as.Name.Value, as.Index)
			if as.Append || as.Index != nil {
				a.intAssign(as.Name.Value, e.val) // n+=V adds V; b[0]=V
			}
			if as.Append && as.Index == nil {
				e.val = a.appendField(as.Name.Value, e.val)
			}
			if as.Index != nil {
				e.elem = a.elemOf(as.Name.Value, as.Index, e.val)
				e.written = &field{val: e.val.val, dyn: e.val.dyn}
				e.val.dyn = true // declare b[1]=v sets an element, not $b
			}
			a.assign(e)
			env = append(env, e)
		case as.Value != nil:
			// declare 'a[$(…)]=1': the subscript of a name given as a
			// word is expanded.
			f := joinField(a.expandWord(as.Value))
			last = &f
			if f.dyn {
				a.nameText(f) // declare "$v": what v may hold
			}
			if !f.dyn && !strings.HasPrefix(f.val, "-") && !strings.HasPrefix(f.val, "+") {
				n, _, _ := strings.Cut(f.val, "=")
				a.nameText(field{val: n})
				if e, ok := a.declWord(f.val, declFlags{set, unset, local, nameref}); ok {
					a.assign(e)
					env = append(env, e)
					if set&attrReadonly != 0 {
						a.markReadonly(e.name)
					}
				}
				if dynOpt {
					a.dynDecl(strings.TrimSuffix(n, "+"))
				}
			}
		case as.Name != nil && as.Array != nil:
			v, _ := a.arrayAssign(as.Name.Value, as.Array, as.Append)
			a.setVar(as.Name.Value, v)
		case as.Array != nil:
			a.arrayValue("", as.Array, 0)
		}
		switch {
		case as.Name == nil:
		case dynOpt:
			a.setVar(as.Name.Value, varVal{}) // declare "$O" X=ABC: -l, -u …?
			a.dynDecl(as.Name.Value)          // -n?
		case set&attrReadonly != 0:
			a.markReadonly(as.Name.Value)
		}
	}
	if dynOpt {
		a.clobberVars() // declare "$X=/": X names the variable set
	}
	if len(env) > 0 {
		a.run(&unit{kind: kAssign, env: env})
	}
	a.declLastWord(d, last)
	// declare +n r=v assigns v through the link (above), then drops it.
	a.applyDrop(drop, dropped, true, false)
}

// declareRef records the nameref as declares. Its value names the target;
// without one, the value the variable had does (r=HOME; declare -n r), and
// a variable the line did not set may have one from the environment.
// Declaring an existing nameref again keeps its target.
func (a *analyzer) declareRef(as *syntax.Assign) {
	name := as.Name.Value
	if a.refs == nil {
		a.refs = map[string]string{}
	}
	t := refRuntime
	v, set := a.vars[name]
	_, isRef := a.refs[name]
	switch {
	case as.Value != nil:
		f := a.expandAssign(as.Value)
		a.nameText(f) // declare -n r='a[$(…)]': every use of r expands it
		t = refTarget(varVal{val: f.val, known: !f.dyn}, name)
	case as.Array != nil:
		a.arrayValue(name, as.Array, 0)
	case isRef:
		return
	case set:
		t = refTarget(v, name)
	default:
		t = refUnsetEnv
	}
	a.refs[name] = t
	if set {
		a.vars[name] = varVal{} // $r is the value of what it names
	}
}

// appendField returns the value X+=V gives the scalar X: the value the
// line gave X followed by f, or a run-time value when the line did not
// know X's value (or X is an array: V joins its first element).
func (a *analyzer) appendField(name string, f field) field {
	name = a.refName(name)
	if _, ref := a.refs[name]; ref {
		return f // a nameref with no known target: setVar handles it
	}
	old, ok := a.vars[name]
	if !ok || !old.known || old.arr != nil {
		f.dyn = true
		return f
	}
	f.val = old.val + f.val
	f.home = old.home || old.val == "" && f.home
	f.ifs = f.ifs || old.ifs
	return f
}
