package classify

import (
	"mvdan.cc/sh/v3/syntax"
)

// opWordState keeps the expansion of nested parameter-operator words
// (${X:-${Y:-${Z:-w}}}) linear in their depth. The words of ${X op w} are
// expanded as possible values (addOpWord, expandKnownOp, assignDefault);
// each expansion of w expands the operators nested in it, and walking,
// checking or expanding the whole of w again at every level would cost
// depth² (or 2^depth for ${X:=${X:=…}}, expanded once for its value and
// once for what it assigns).
type opWordState struct {
	walked int                   // > 0: inside the word of an operator whose expansion walkNode already walked
	subst  map[*syntax.Word]bool // hasSubst's answers
	last   *syntax.Word          // the word opWordValue expanded last
	fields []field               // and its fields, for the assignDefault of the same expansion
}

// nestedParam walks a parameter expansion before it is expanded, once:
// one nested in the word of another was walked with it. Nested operators
// are charged as steps of work, so that a line built to expand them over
// and over is stopped by the limits (see charge); it reports false then.
func (a *analyzer) nestedParam(p *syntax.ParamExp) bool {
	if a.opWord.walked == 0 {
		a.walkNode(p)
		return true
	}
	return p.Exp == nil || a.charge(1)
}

// inOpWord runs f as the expansion of the word of a parameter operator
// whose expansion was walked.
func (a *analyzer) inOpWord(f func()) {
	a.opWord.walked++
	f()
	a.opWord.walked--
}

// hasSubst reports whether a word holds a command, process or arithmetic
// substitution: those were already walked, and expanding them again would
// walk them twice. The answers for the words nested in w are kept as well
// (one walk answers for all of them).
func (a *analyzer) hasSubst(w *syntax.Word) bool {
	if found, ok := a.opWord.subst[w]; ok {
		return found
	}
	if a.opWord.subst == nil {
		a.opWord.subst = map[*syntax.Word]bool{}
	}
	seen := 0              // substitutions met so far
	var open []syntax.Node // the nodes being walked, innermost last
	var at []int           // seen when each was entered
	syntax.Walk(w, func(n syntax.Node) bool {
		if n == nil { // after the children of open's last node
			if w, ok := open[len(open)-1].(*syntax.Word); ok {
				a.opWord.subst[w] = seen > at[len(at)-1]
			}
			open, at = open[:len(open)-1], at[:len(at)-1]
			return true
		}
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			seen++
			return false
		case *syntax.Word:
			if found, ok := a.opWord.subst[n]; ok { // answered already: not walked again
				if found {
					seen++
				}
				return false
			}
		}
		open, at = append(open, n), append(at, seen)
		return true
	})
	return a.opWord.subst[w]
}

// opWordFields returns the fields of w when opWordValue has just expanded
// it (the assignDefault that follows the same expansion), and forgets them.
func (a *analyzer) opWordFields(w *syntax.Word) ([]field, bool) {
	if a.opWord.last != w || w == nil {
		return nil, false
	}
	fs := a.opWord.fields
	a.opWord.last, a.opWord.fields = nil, nil
	return fs, true
}
