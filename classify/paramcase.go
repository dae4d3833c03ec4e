package classify

import (
	"regexp"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// caseOps maps bash 5.1's ${X@L}, ${X@U} and ${X@u} to the operators they
// equal: ,, ^^ and ^ with no pattern.
var caseOps = map[string]syntax.ParExpOperator{
	"L": syntax.LowerAll,
	"U": syntax.UpperAll,
	"u": syntax.UpperFirst,
}

// caseOp returns the case operator e is, with whether it takes a pattern
// (${X,,pat}); ok is false for any other operator (${X@Q} …).
func caseOp(e *syntax.Expansion) (op syntax.ParExpOperator, withPat, ok bool) {
	switch e.Op {
	case syntax.UpperAll, syntax.LowerAll, syntax.UpperFirst, syntax.LowerFirst:
		return e.Op, e.Word != nil, true
	case syntax.OtherParamOps:
		if e.Word != nil {
			op, ok = caseOps[e.Word.Lit()]
		}
		return op, false, ok
	}
	return 0, false, false
}

// isCaseOp reports whether e changes the case of the value.
func isCaseOp(e *syntax.Expansion) bool {
	_, _, ok := caseOp(e)
	return ok
}

// caseValue returns s with ${X^^}, ${X,,}, ${X^}, ${X,} (with or without
// a literal pattern, which each character is matched against), ${X@L},
// ${X@U} or ${X@u} applied; ok is false for any other operator, or a
// pattern only known at run time.
func (a *analyzer) caseValue(s string, e *syntax.Expansion) (string, bool) {
	op, withPat, ok := caseOp(e)
	if !ok {
		return "", false
	}
	match := func(rune) bool { return true }
	if withPat {
		rx, ok := a.casePattern(e)
		if !ok {
			return "", false
		}
		seen := map[rune]bool{} // a long value repeats its characters
		match = func(r rune) bool {
			m, ok := seen[r]
			if !ok {
				m = rx.MatchString(string(r))
				seen[r] = m
			}
			return m
		}
	}
	to := unicode.ToUpper
	if op == syntax.LowerAll || op == syntax.LowerFirst {
		to = unicode.ToLower
	}
	all := op == syntax.LowerAll || op == syntax.UpperAll
	var sb strings.Builder
	for i, r := range s {
		if (all || i == 0) && match(r) {
			r = to(r)
		}
		sb.WriteRune(r)
	}
	return sb.String(), true
}

// casePattern returns the expression matching one character a case
// operator's literal pattern matches.
func (a *analyzer) casePattern(e *syntax.Expansion) (*regexp.Regexp, bool) {
	pat, ok := trimPattern(e)
	switch {
	case !ok:
		return nil, false
	case pat == "":
		return matchNothing(), true // ${X,,''}: bash changes nothing
	}
	expr, err := pattern.Regexp(pat, 0)
	if err != nil {
		return nil, false
	}
	rx, err := a.compile("(?s)^(?:" + expr + ")$")
	return rx, err == nil
}

// matchNothing matches no character.
var matchNothing = lazyRegexp(`[^\x00-\x{10FFFF}]`)

// caseFallback returns a value a case change only known at run time (its
// pattern is) may give s: lowered for ,, and , (credential paths are
// lower case), else s as it is.
func caseFallback(s string, e *syntax.Expansion) string {
	if op, _, _ := caseOp(e); op == syntax.LowerAll || op == syntax.LowerFirst {
		return strings.ToLower(s)
	}
	return s
}
