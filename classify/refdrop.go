package classify

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A nameref stops being one on declare +n r (typeset, local too) and on
// unset -n r: r is then a plain variable, and assignments, word expansion
// and arithmetic all use r itself, no longer its old target. declare +n
// leaves r holding the target's name (its value all along); unset -n
// unsets r.
//
// Whether the builtin drops the link is read from its words after quote
// removal ("+n", +""n, "r" alike) the way bash parses its options: only
// before -- and the first name. Where that is only known at run time (a
// word from an expansion, an option letter some bash may lack, a
// redirection that may fail), the link may or may not be dropped: both
// states are joined.

// refDrop is what a builtin does to the nameref links of the names given.
type refDrop uint8

const (
	dropNone  refDrop = iota // the links stay
	dropSure                 // the links of names go
	dropMaybe                // the links of names may go
	dropAny                  // any link may go: a name is only known at run time
)

// declOpts are the option letters of declare/typeset/local: +n drops a
// link unless one of declNoDrop makes the builtin work on something else
// (functions with -f/-F, a listing with -p). Other letters fail in some
// bash and not in another.
const (
	declOpts  = "aAfFgiIlnprtux"
	unsetOpts = "fnv"
)

var declNoDrop = []string{"-f", "-F", "-p", "+p"}

// declDrop reads the words given to declare, typeset or local (after
// quote removal; dyn marks one only known at run time) and returns what
// it does to the links of names. inFunc: local works only in a function.
func declDrop(variant string, words []field, inFunc bool) (refDrop, []string) {
	if !isDeclVariant(variant) || variant == "local" && !inFunc {
		return dropNone, nil // export +n only removes the export flag; local outside a function fails
	}
	s := readDeclOpts(variant, words)
	switch {
	case s.noVars:
		return dropNone, nil
	case s.dyn:
		return dropAny, nil // an option only known at run time
	case !s.drop:
		return dropNone, nil
	}
	names, anyName := dropNames(s.names)
	switch {
	case anyName:
		return dropAny, nil
	case s.invalid:
		return dropMaybe, names // an invalid option: bash does nothing
	}
	return dropSure, names
}

// dropNames returns the variable names in the name words of a
// declaration (r, r=v, r[0]=v all name r); any is true when a word is only
// known at run time.
func dropNames(words []field) (names []string, any bool) {
	for _, w := range words {
		if w.dyn {
			return nil, true
		}
		n, _, _ := strings.Cut(w.val, "=")
		n, _, _ = strings.Cut(n, "[")
		names = append(names, strings.TrimSuffix(n, "+"))
	}
	return names, false
}

// unsetDrop reads unset's words: -n drops the links of the names, unless
// -f makes it unset functions (or -f and -v together make it fail).
func unsetDrop(words []field) (refDrop, []string) {
	var opts string
	i := 0
	for ; i < len(words); i++ {
		w := words[i]
		if w.dyn {
			return dropAny, nil
		}
		if w.val == "--" {
			i++
			break
		}
		if len(w.val) < 2 || w.val[0] != '-' {
			break
		}
		opts += w.val[1:]
	}
	if !strings.Contains(opts, "n") || strings.Contains(opts, "f") {
		return dropNone, nil
	}
	names, anyName := dropNames(words[i:])
	switch {
	case anyName:
		return dropAny, nil
	case strings.Trim(opts, unsetOpts) != "":
		return dropMaybe, names // an invalid option: unset does nothing
	}
	return dropSure, names
}

// declWords returns the words of a declaration clause after quote
// removal, without expanding them (that has effects the walk of the
// clause has): a word with an expansion is only known at run time.
func declWords(d *syntax.DeclClause) []field {
	var out []field
	for _, as := range d.Args {
		switch {
		case as.Name != nil:
			out = append(out, field{val: as.Name.Value})
		case as.Value != nil:
			l, ok := wordLiteral(as.Value)
			out = append(out, field{val: l, dyn: !ok})
		}
	}
	return out
}

// applyDrop drops the links as drop says; keep as for dropRef. A drop that
// may not happen (or a builtin that may not run: mayFail) joins the states
// with and without it.
func (a *analyzer) applyDrop(drop refDrop, names []string, keep, mayFail bool) {
	switch {
	case drop == dropNone || len(a.refs) == 0:
		return
	case drop == dropAny:
		names = slices.Collect(maps.Keys(a.refs))
	}
	if drop == dropSure && !mayFail {
		for _, n := range names {
			a.dropRef(n, keep)
		}
		return
	}
	a.maybe(func() stream {
		a.applyDrop(dropSure, names, keep, false)
		return stream{}
	})
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

// wrappedDecl follows declare behind builtin or command (a call, not a
// declaration clause): the variables its NAME=VALUE words set, the
// namerefs -n makes, and the links +n drops (declare +n r=v assigns v
// through the link first). A word only known at run time may set any
// variable; a redirection that may fail may keep it from running.
func (a *analyzer) wrappedDecl(u *unit) {
	if slices.ContainsFunc(u.redirs, redir.mayFail) {
		c := *u
		c.redirs = nil
		a.maybe(func() stream { a.wrappedDecl(&c); return stream{} })
		return
	}
	drop, names := declDrop(u.name, u.args, a.frame != nil)
	spec := readDeclOpts(u.name, u.args)
	if u.name != "local" || a.frame != nil { // local outside a function fails
		fl := declFlags{set: spec.set, unset: spec.unset, local: a.frame != nil && !spec.global, nameref: spec.nameref}
		a.wrappedAssign(spec.names, fl, spec.dyn)
	}
	if spec.dyn || slices.ContainsFunc(spec.names, func(f field) bool { return f.dyn }) {
		a.clobberVars() // builtin declare "$X=/": X names the variable set
	}
	a.applyDrop(drop, names, true, false)
}

// wrappedAssign assigns the NAME=VALUE words of a wrapped declare as the
// quoted form of a declaration clause does (declWord), and gives a bare
// name its attributes (declName). dyn: an option only known at run time.
func (a *analyzer) wrappedAssign(words []field, fl declFlags, dyn bool) {
	readonly := fl.set&attrReadonly != 0
	for _, w := range words {
		if w.dyn {
			continue
		}
		if fl.local && isName(w.val) {
			a.declareLocal(w.val, dyn) // a run-time option may be -g
		}
		n, _, isSet := strings.Cut(w.val, "=")
		if !isSet {
			a.declName(w.val, fl, readonly, dyn)
			continue
		}
		if e, ok := a.declWord(w.val, fl); ok {
			a.assign(e)
			if readonly {
				a.markReadonly(e.name)
			}
		}
		if dyn {
			a.dynDecl(strings.TrimSuffix(n, "+"))
		}
	}
}
