package classify

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Some run-time values may still be a text the line itself wrote: a
// value one path of a branch or loop gave (joinVar), OPTARG after getopts
// on literal words, BASH_REMATCH after [[ 'lit' =~ re ]] (a substring of
// the left side), $_ (the previous command's last word). Word expansion
// treats them as run-time values, as before; arithmetic, which evaluates
// a value's names and subscripts as code, follows each such text
// (varVal.maybe), so a literal x[$(…)] is judged wherever it may land.
// Bash's value is the text or a part of it; a part holds no substitution
// or name the whole does not (fail closed: the whole is followed).

// maxMaybe bounds the texts a value keeps; those that may run code ($, `)
// are kept first.
const maxMaybe = 64

// maybeTexts returns the texts v may hold that arithmetic follows: its
// known value or elements, its possible ones, and its maybe texts.
func maybeTexts(v varVal) []string {
	var out []string
	switch {
	case v.known && v.arr != nil:
		out = append(out, v.arr...)
	case v.known:
		out = append(out, v.val)
	case v.hasDflt:
		out = append(append(out, v.dflt), v.dfltArr...)
	}
	return append(out, v.maybe...)
}

// joinMaybe returns the texts either of two values may hold, deduplicated
// and bounded, plain numbers left out (they evaluate nothing).
func joinMaybe(vs ...varVal) []string {
	var out []string
	for _, v := range vs {
		for _, t := range maybeTexts(v) {
			if t != "" && !allDigits(t) {
				out = append(out, t)
			}
		}
	}
	return boundMaybe(out)
}

// boundMaybe sorts and deduplicates texts, keeping at most maxMaybe: those
// holding $ or ` first.
func boundMaybe(out []string) []string {
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxMaybe {
		slices.SortStableFunc(out, func(x, y string) int {
			return boolRank(strings.ContainsAny(y, "$`")) - boolRank(strings.ContainsAny(x, "$`"))
		})
		out = out[:maxMaybe]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// getoptsArg records OPTARG after getopts: one of the words after the
// optstring and name, or of the positional parameters the line set when
// there are none (getopts a: o -a 'x[…]'; set -- -a 'x[…]'; getopts a: o).
func (a *analyzer) getoptsArg(args []field) {
	if len(args) > 0 && args[0].val == "--" {
		args = args[1:]
	}
	var texts []string
	if len(args) > 2 {
		for _, f := range args[2:] {
			if !f.dyn {
				texts = append(texts, f.val)
			}
		}
	} else if v, ok := a.vars["@"]; ok {
		texts = maybeTexts(v)
	}
	if m := joinMaybe(varVal{maybe: texts}); m != nil {
		a.setVar("OPTARG", varVal{maybe: m})
	}
}

// reMatch records BASH_REMATCH after a [[ ]] holding =~ tests: each
// element a substring of a left side the line knows.
func (a *analyzer) reMatch(x syntax.TestExpr) {
	var texts []string
	syntax.Walk(x, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryTest); ok && b.Op == syntax.TsReMatch {
			if w, ok := b.X.(*syntax.Word); ok {
				for _, f := range a.arithFields(w) {
					if !f.dyn {
						texts = append(texts, f.val)
					}
				}
			}
		}
		return true
	})
	a.setVar("BASH_REMATCH", varVal{maybe: joinMaybe(varVal{maybe: texts})})
}

// lastWord records $_ after a command: its last word. A plain number (or
// a word only known at run time) is no text worth following.
func (a *analyzer) lastWord(u *unit) {
	last := field{val: u.name, dyn: u.dynName}
	if len(u.args) > 0 {
		last = u.args[len(u.args)-1]
	}
	m := []string(nil)
	if !last.dyn {
		m = joinMaybe(varVal{maybe: []string{last.val}})
	}
	if _, set := a.vars["_"]; m == nil && !set {
		return
	}
	if a.vars == nil {
		a.vars = map[string]varVal{}
	}
	a.vars["_"] = varVal{maybe: m} // not setVar: that makes $_ a bare run-time value
}
