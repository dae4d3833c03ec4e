package classify

import (
	"slices"
	"strings"
)

// How a builtin names the variables it sets.
type setterKind uint8

const (
	setsNames  setterKind = iota // every word that is a name (read x y, mapfile arr)
	setsOption                   // the value of an option (printf -v x, wait -p x): see nameOptions
	setsSecond                   // the second operand (getopts optstring x)
	setsLeft                     // the name left of = in each word (let x=1)
)

// varSetters are builtins that set shell variables other than by an
// assignment: after them the variable's value is only known at run time
// (read from a literal here-string excepted). Words that only look like
// names (read -p PROMPT) are taken as set too, which only makes the
// classifier more careful.
var varSetters = map[string]setterKind{
	"read": setsNames, "mapfile": setsNames, "readarray": setsNames,
	"printf": setsOption, "wait": setsOption, "getopts": setsSecond, "let": setsLeft,
}

// nameOptions are, for a setsOption builtin, the option letter whose
// value names the variable set (wait -p NAME is bash 5.1's) and the flags
// that may come before it in one word (wait -np NAME).
var nameOptions = map[string]struct {
	opt   byte
	flags string
}{"printf": {'v', ""}, "wait": {'p', "fn"}}

// builtinAssigns records the variables a builtin sets (read HOME), and
// forgets the ones unset removes.
func (a *analyzer) builtinAssigns(u *unit) {
	name, args, ok := builtinCall(u) // builtin unset, command read too
	if u.kind != kCall || !ok {
		return
	}
	if name != u.name {
		c := *u
		c.name, c.args = name, args
		u = &c
	}
	switch u.name {
	case "test", "[":
		a.testVarSet(u.args)
		return
	case "declare", "typeset", "local": // builtin declare: not a declaration clause
		a.wrappedDecl(u)
		return
	case "unset":
		a.unsetNames(u.args)
		drop, names := unsetDrop(u.args) // unset -n r: r itself, not its target
		a.applyDrop(drop, names, false, slices.ContainsFunc(u.redirs, redir.mayFail))
		for _, f := range u.args {
			if strings.IndexByte(f.val, '[') > 0 {
				a.unsetElem(f)
				continue
			}
			delete(a.vars, f.val)
			a.unsetLocal(f.val)
		}
		a.unsetFuncs(u)
		return
	}
	kind, ok := varSetters[u.name]
	if !ok {
		a.setImplicit(u.name, u.args) // cd sets OLDPWD
		return
	}
	if setsRuntimeName(u, kind) {
		// read "$v" with v='a[$(…)]' on one path: the name's subscript
		// is expanded; judged before every variable is clobbered.
		for _, f := range setterWords(u, kind) {
			if f.dyn {
				a.nameText(f)
			}
		}
		a.clobberVars() // it may be any variable, as through a nameref
	}
	var names []string
	switch kind {
	case setsNames:
		for _, f := range u.args {
			names = append(names, f.val)
		}
	case setsOption:
		for _, f := range optionNames(u) {
			names = append(names, f.val)
		}
	case setsSecond:
		if ops := u.operands(); len(ops) > 1 {
			names = append(names, ops[1].val)
		}
	case setsLeft:
		for _, f := range u.args {
			n, _, _ := strings.Cut(f.val, "=")
			names = append(names, strings.TrimRight(n, "+-*/%<>&|^"))
		}
	}
	a.intRead(u, arrayNames(names))
	vals := a.builtinVals(u)
	var elems []string // read 'a[1]': written after the plain names
	for _, n := range names {
		if strings.IndexByte(n, '[') > 0 {
			a.nameText(field{val: n}) // read 'a[$(…)]': the subscript is expanded
		}
		if a.builtinTableWrite(n) {
			continue
		}
		if _, _, ok := elemTarget(n); ok {
			elems = append(elems, n)
			continue
		}
		if isVarName(n) {
			// Set once, with its final value: the first write to a
			// nameref declared without a target names the target.
			a.setVar(n, vals[n])
			delete(vals, n)
		}
	}
	a.setImplicit(u.name, u.args)
	if u.name == "getopts" {
		a.getoptsArg(u.args)
	}
	for n, v := range vals {
		if isName(n) { // REPLY, MAPFILE
			a.setVar(n, v)
		}
	}
	a.builtinElems(elems, vals)
	if readsLines.has(u.name) && u.in.tree != nil {
		// find ~ | while read f: f is a name the listing printed.
		for _, n := range append(names, "REPLY", "MAPFILE") {
			if v, ok := a.vars[n]; ok && !v.known {
				v.tree = u.in.tree
				a.setVar(n, v)
			}
		}
	}
}

// readsLines are the builtins that store the lines they read.
var readsLines = newSet("read", "mapfile", "readarray")

// builtinVals returns the values a builtin stores where the line knows
// them or their possible values: read and mapfile from a known
// here-string, printf -v. HOME, PWD … keep only a plain known value a
// here-string or printf -v gives (read HOME <<< /, printf -v HOME /);
// another stays a run-time value, so a delete aimed through it is judged a
// dynamic target; BASH_ALIASES and the like are builtinTableWrite's.
func (a *analyzer) builtinVals(u *unit) map[string]varVal {
	vals, ok := a.readHereVars(u)
	if !ok || vals == nil {
		vals = map[string]varVal{}
	}
	for n, v := range vals {
		_, sym := symbolicSamples[a.refName(n)]
		if nameTables.has(a.refName(n)) || sym && (!v.known || v.arr != nil) {
			delete(vals, n)
		}
	}
	if name, v, ok := printfValue(u); ok && !name.dyn {
		if !v.known {
			v.maybe = a.printfMaybe(u)
		}
		if _, sym := symbolicSamples[a.refName(name.val)]; !sym || v.known && v.arr == nil {
			vals[name.val] = v // printf -v HOME /: a plain known value, as read HOME <<< / gives
		} else {
			vals[name.val] = varVal{}
		}
	}
	return vals
}

// builtinElems follows a builtin's writes to array elements it names
// literally (read 'a[1]', printf -v 'm[k]' …, given after the plain
// names, as bash assigns them in order): the element takes the value vals
// gives it where the line knows it and its key; otherwise the array
// becomes a run-time value. The old element is never kept.
func (a *analyzer) builtinElems(elems []string, vals map[string]varVal) {
	for _, n := range elems {
		base, sub, _ := elemTarget(n)
		if v, ok := a.elemWritten(base, sub, vals[n]); ok {
			a.setVar(base, v)
			continue
		}
		w := vals[n]
		f := field{val: w.val, dyn: !w.known || w.arr != nil}
		if w.hasDflt {
			f = field{val: w.dflt} // printf -v 'a[1]' '%5s' …: its possible value
		}
		a.setVar(base, a.elemUnknown(base, f))
	}
}

// elemWritten returns the array base[sub]=v leaves, as the assignment
// base[sub]=v would; ok is false where that is only known at run time
// (an unknown value or key, and HOME, PWD and the like, which stay
// run-time values as printf -v HOME does).
func (a *analyzer) elemWritten(base, sub string, v varVal) (varVal, bool) {
	if _, sym := symbolicSamples[a.refName(base)]; sym || !v.known || v.arr != nil {
		return varVal{}, false
	}
	e := a.elemOf(base, a.subscriptOf(base, sub), field{val: v.val}) // printf -v 'a[1+0]': arithmetic
	if e == nil {
		return varVal{}, false
	}
	return a.elemAssigned(base, e)
}

// arrayNames returns names with each element (a[1]) given as its array.
func arrayNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if base, _, ok := elemTarget(n); ok {
			out[i] = base
		}
	}
	return out
}

// setterWords returns the words of a builtin that may be the names it
// sets (every word for read and the like: an option's value is judged
// too, which only fails closed).
func setterWords(u *unit, kind setterKind) []field {
	switch kind {
	case setsOption:
		return optionNames(u)
	case setsSecond:
		if ops := u.operands(); len(ops) > 1 {
			return ops[1:2]
		}
		return nil
	}
	return u.args
}

// setsRuntimeName reports whether a builtin sets a variable whose name is
// only known at run time: read "$X", mapfile "$X", printf -v "$X",
// getopts OPTS "$X". Option values (read -p "$P") are not names. Such a
// variable may be any: every one the line knows (and HOME, PWD …) becomes
// a run-time value, as after an assignment through a nameref whose target
// is only known at run time.
func setsRuntimeName(u *unit, kind setterKind) bool {
	switch kind {
	case setsOption:
		for _, f := range optionNames(u) {
			if f.dyn {
				return true
			}
		}
	case setsSecond:
		ops := u.operands()
		return len(ops) > 1 && ops[1].dyn
	case setsNames:
		valueOpts := "dinNptu" // read; -a takes a name
		if u.name != "read" {
			valueOpts = "dnOsuCc"
		}
		opts := true
		for i := 0; i < len(u.args); i++ {
			f := u.args[i]
			if f.dyn {
				return true
			}
			if !opts || len(f.val) < 2 || f.val[0] != '-' {
				opts = opts && len(f.val) > 0 && f.val[0] == '-'
				continue
			}
			if f.val == "--" {
				opts = false
				continue
			}
			if j := strings.IndexAny(f.val[1:], valueOpts); j >= 0 && j+2 == len(f.val) {
				i++ // the option's value is the next word
			}
		}
	}
	return false
}

// tildes returns where in an unquoted literal that starts a word bash
// expands ~ to $HOME: at the start (~, ~/x), and in a word that looks like
// an assignment after its = and each later : (of=~/x, P=a:~/b). ~user and
// escaped tildes are left alone.
func tildes(v string) []int {
	if strings.IndexByte(v, '\\') >= 0 {
		return nil
	}
	var at []int
	ends := func(i int) bool { return i+1 == len(v) || v[i+1] == '/' || v[i+1] == ':' }
	if strings.HasPrefix(v, "~") && ends(0) {
		at = append(at, 0)
	}
	name, _, ok := strings.Cut(v, "=")
	if !ok || !isVarName(name) {
		return at
	}
	for i := len(name) + 1; i < len(v); i++ {
		if v[i] == '~' && (i == len(name)+1 || v[i-1] == ':') && ends(i) {
			at = append(at, i)
		}
	}
	return at
}

// expandTildes adds the literal v whose tildes at the offsets at expand to
// what the line set HOME to (HOME=/; rm -rf ~/etc): its value when known,
// else a part only known at run time.
func (a *analyzer) expandTildes(b *fieldBuilder, v string, at []int) {
	prev := 0
	for _, i := range at {
		a.expandLit(b, v[prev:i], false, false)
		if !a.addVar(b, "HOME", "$HOME", true) {
			b.addDyn("$HOME")
		}
		prev = i + 1
	}
	a.expandLit(b, v[prev:], false, false)
}

// runMapfile classifies the callback of mapfile/readarray -C CALLBACK,
// which bash runs as a command (with an index and a line as arguments)
// for every -c QUANTUM lines read: CALLBACK 0 LINE is classified, LINE a
// run-time value (mapfile -C eval runs the lines it reads).
func (a *analyzer) runMapfile(u *unit) (stream, bool) {
	for opt, f := range optionValues(u.args, "dnOsuCc") {
		if opt == 'C' {
			f.val += ` 0 "${MAPFILE_LINE}"` // a line read: only known at run time
			a.hookString(u, f)
		}
	}
	return a.produce(u), true
}

// optionNames returns the values of a setsOption builtin's name option
// (printf -v x, -vx; wait -n -p x, -np x). Every word that starts with -
// is read as options, even past the first operand: a name is taken as
// set where in doubt.
func optionNames(u *unit) []field {
	spec := nameOptions[u.name]
	var out []field
	for i, f := range u.args {
		if len(f.val) < 2 || f.val[0] != '-' || f.val == "--" {
			continue
		}
		j := strings.IndexByte(f.val[1:], spec.opt)
		switch {
		case j < 0 || strings.Trim(f.val[1:j+1], spec.flags) != "":
		case j+2 < len(f.val):
			out = append(out, field{val: f.val[j+2:], dyn: f.dyn})
		case i+1 < len(u.args):
			out = append(out, u.args[i+1])
		}
	}
	return out
}
