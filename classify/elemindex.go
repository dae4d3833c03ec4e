package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// An indexed array's subscript is arithmetic wherever an element is
// written: a[1+0]=v, a[-1]=v, printf -v 'a[ 1]', read 'a[-2]', declare
// 'a[n]=v' all set the element bash computes, not the one the text looks
// like. constArith computes a subscript that is constant on the line;
// anything else (a run-time variable, an assignment inside it) leaves
// the element only known at run time, and the array's possible values
// keep the text written (elemUnknown), so arithmetic still follows it.

// arithOps are the binary operators constArith computes; ok is false
// where bash stops with an error (division by zero, a negative shift or
// exponent).
var arithOps = map[syntax.BinAritOperator]func(x, y int) (int, bool){
	syntax.Add: func(x, y int) (int, bool) { return x + y, true },
	syntax.Sub: func(x, y int) (int, bool) { return x - y, true },
	syntax.Mul: func(x, y int) (int, bool) { return x * y, true },
	syntax.Quo: func(x, y int) (int, bool) { return divide(x, y, false) },
	syntax.Rem: func(x, y int) (int, bool) { return divide(x, y, true) },
	syntax.Shl: func(x, y int) (int, bool) { return x << (y & 63), y >= 0 },
	syntax.Shr: func(x, y int) (int, bool) { return x >> (y & 63), y >= 0 },
	syntax.And: func(x, y int) (int, bool) { return x & y, true },
	syntax.Or:  func(x, y int) (int, bool) { return x | y, true },
	syntax.Xor: func(x, y int) (int, bool) { return x ^ y, true },
}

func divide(x, y int, rem bool) (int, bool) {
	if y == 0 {
		return 0, false
	}
	if rem {
		return x % y, true
	}
	return x / y, true
}

// constArith returns the value of an arithmetic expression made of
// numbers, variables the line set to numbers, parentheses, unary signs
// and the operators of arithOps; ok is false for anything else.
func (a *analyzer) constArith(x syntax.ArithmExpr) (int, bool) {
	switch x := x.(type) {
	case *syntax.Word:
		l := strings.TrimSpace(x.Lit())
		if l == "" {
			return 0, false
		}
		if !isDigit(l[0]) {
			if l, ok := a.numberVar(l); ok {
				return bashInt(l)
			}
			return 0, false
		}
		return bashInt(l)
	case *syntax.ParenArithm:
		return a.constArith(x.X)
	case *syntax.UnaryArithm:
		n, ok := a.constArith(x.X)
		switch {
		case !ok || x.Post:
		case x.Op == syntax.Minus:
			return -n, true
		case x.Op == syntax.Plus:
			return n, true
		case x.Op == syntax.BitNegation:
			return ^n, true
		}
	case *syntax.BinaryArithm:
		op, known := arithOps[x.Op]
		l, ok := a.constArith(x.X)
		r, ok2 := a.constArith(x.Y)
		if known && ok && ok2 {
			return op(l, r)
		}
	}
	return 0, false
}

// subscriptExpr parses the subscript text of a name given as a word
// (printf -v 'a[1+0]', read 'a[-2]') as the arithmetic bash evaluates; a
// literal word where it does not parse (kept as text: its key is then
// only known at run time unless it is a plain number).
func subscriptExpr(sub string) syntax.ArithmExpr {
	x, err := syntax.NewParser().Arithmetic(strings.NewReader(sub))
	if err != nil || x == nil {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: sub}}}
	}
	return x
}

// elemKey returns the key the subscript idx of an element written to
// name gives (see elemOf): an associative array's literal key, an
// indexed array's number when the line knows it.
func (a *analyzer) elemKey(name string, idx syntax.ArithmExpr) (string, bool) {
	k, ok := a.indexText(idx)
	if ok || a.isAssoc(name) {
		return k, ok
	}
	n, ok := a.constArith(idx)
	return itoa(n), ok
}

// negativeKey returns the index a negative subscript n names in the
// indexed array with the keys given: counted back from one past the
// highest; ok is false where bash refuses it (before the first element)
// or the keys are not all known.
func negativeKey(n int, keys []string) (string, bool) {
	next := nextIndex(keys, keys)
	if next < 0 || n+next < 0 {
		return "", false
	}
	return itoa(n + next), true
}

// elemUnknown returns what an element write the line cannot place leaves
// in name: a run-time value whose possible values are the elements it
// had and the value written, so that arithmetic still follows them.
func (a *analyzer) elemUnknown(name string, f field) varVal {
	old := a.vars[a.refName(name)]
	var texts []string
	switch {
	case old.known && old.arr != nil:
		texts = append(texts, old.arr...)
	case old.known:
		texts = append(texts, old.val)
	case old.hasDflt:
		texts = append(texts, old.dflt)
	}
	if !f.dyn {
		texts = append(texts, f.val)
	}
	if len(texts) == 0 {
		return varVal{}
	}
	return varVal{dflt: strings.Join(texts, " "), hasDflt: true}
}
