package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The subscript of an indexed array is arithmetic wherever it appears, not
// only in ${a[x]}: in an assignment (b[x]=1, b=([x]=1), declare b[x]=1),
// in the words of unset (unset 'a[x]') and test -v, and in a nameref's
// target (declare -n r='a[x]'). A variable it names has its value
// evaluated, and a subscript in that value runs its $(…) (see arith.go).
// An associative array's subscripts are keys: only their substitutions
// run. An integer variable (declare -i) evaluates every value it is
// given, by whatever kind of assignment.

// isAssoc reports whether name is an associative array on every path: one
// declared with -A, or a table of the shell's own (BASH_CMDS).
func (a *analyzer) isAssoc(name string) bool {
	name = a.refName(name)
	at := a.attrs[name]
	return at&attrAssoc != 0 && at&attrMixed == 0 || nameTables.has(name)
}

// isInt reports whether name may have the integer attribute: an
// assignment to it evaluates the value.
func (a *analyzer) isInt(name string) bool {
	at := a.attrs[a.refName(name)]
	return at&attrInt != 0 && at&attrReadonly == 0
}

// subscript follows the index of an element the line assigns (b[x]=1,
// b=([x]=1)): arithmetic unless the array is associative.
func (a *analyzer) subscript(name string, idx syntax.ArithmExpr) {
	if idx != nil && !a.isAssoc(name) {
		a.arith(idx)
	}
}

// intAssign evaluates values given to an integer variable other than by a
// plain assignment, which setVar judges: n+=V adds V, b[0]=V sets an
// element, b+=(V …) appends elements. A run-time value is not judged (see
// arith.go).
func (a *analyzer) intAssign(name string, fs ...field) {
	if !a.isInt(name) {
		return
	}
	for _, f := range fs {
		if !f.dyn {
			a.arithText(f.val, 0)
		}
	}
}

// intRead judges what read or mapfile stores in an integer variable: the
// text read is evaluated as arithmetic. A here-string or here-document
// the line wrote is in plain sight; input only known at run time is left
// to run time, as other run-time values are.
func (a *analyzer) intRead(u *unit, names []string) {
	if !u.in.textKnown {
		return
	}
	for _, n := range names {
		if isName(n) && a.isInt(n) {
			a.arithText(u.in.text, 0)
			return
		}
	}
}

// testVarSet follows the names given to test -v and [ -v: a subscript
// in one is expanded, as in [[ -v NAME ]].
func (a *analyzer) testVarSet(args []field) {
	for i := 0; i+1 < len(args); i++ {
		if args[i].val == "-v" && !args[i].dyn {
			a.nameText(args[i+1])
		}
	}
}

// unsetNames follows the words of unset: unset 'a[x]' evaluates the
// subscript.
func (a *analyzer) unsetNames(args []field) {
	for _, f := range args {
		if f.dyn || strings.IndexByte(f.val, '[') > 0 {
			a.nameText(f) // unset "$v": what v may hold
		}
	}
}
