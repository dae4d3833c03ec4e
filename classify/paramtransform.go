package classify

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// transformKnown adds ${X%p}, ${X#p}, ${X/a/b}, ${X:o:l}, ${X,,} and the
// like where the line set X to a known value, computed as bash does:
// X=~/.ssh/id_rsa.pub; cat ${X%.pub} reads the private key. A transform
// it cannot compute (a pattern or a number only known at run time) is a
// run-time part whose possible value is X untransformed (risk first: the
// value is on the line). It reports whether it added the expansion.
func (a *analyzer) transformKnown(b *fieldBuilder, p *syntax.ParamExp, name string, quoted bool) bool {
	if p.Param == nil || p.Excl || p.Length || p.Index != nil || p.Names != 0 || p.NestedParam != nil {
		return false
	}
	v, set := a.vars[name]
	if !set || !v.known || v.arr != nil || v.item {
		return false
	}
	var out string
	ok, home := false, v.home
	switch {
	case p.Slice != nil && p.Exp == nil && p.Repl == nil:
		out, ok = sliceValue(v.val, p.Slice)
	case p.Repl != nil && p.Exp == nil && p.Slice == nil:
		var withHome bool
		out, withHome, ok = a.replaceValue(v.val, p.Repl)
		home = home || withHome
	case p.Exp != nil && p.Slice == nil && p.Repl == nil && isTrimOp(p.Exp.Op):
		out, ok = trimValue(v.val, p.Exp)
	case p.Exp != nil && p.Slice == nil && p.Repl == nil && p.Exp.Word == nil:
		out, ok = caseValue(v.val, p.Exp.Op)
		if !ok {
			return false // not a transform (${X@Q} …)
		}
	default:
		return false
	}
	if !ok {
		b.addDefaulted(a.source(p), v.val)
		return true
	}
	if home && strings.HasPrefix(out, "~") && (!b.started || b.cur.val == "") {
		b.cur.home = true
	}
	a.addValue(b, out, quoted)
	return true
}

// trimRegexp returns the regular expression whose first group is what a
// trim operator removes, when its pattern is written literally.
func trimRegexp(e *syntax.Expansion) (*regexp.Regexp, bool) {
	pat, ok := trimPattern(e)
	if !ok {
		return nil, false
	}
	suffix := e.Op == syntax.RemSmallSuffix || e.Op == syntax.RemLargeSuffix
	mode := pattern.Mode(0)
	if e.Op == syntax.RemSmallPrefix || e.Op == syntax.RemSmallSuffix {
		mode = pattern.Shortest
	}
	expr, err := pattern.Regexp(pat, mode)
	if err != nil {
		return nil, false
	}
	switch {
	case suffix && mode == pattern.Shortest:
		expr = ".*(" + expr + ")$"
	case suffix:
		expr = "(" + expr + ")$"
	default:
		expr = "^(" + expr + ")"
	}
	rx, err := regexp.Compile("(?s)" + expr)
	return rx, err == nil
}

// trimValue returns s with the trim operator e applied.
func trimValue(s string, e *syntax.Expansion) (string, bool) {
	rx, ok := trimRegexp(e)
	if !ok {
		return "", false
	}
	if loc := rx.FindStringSubmatchIndex(s); loc != nil {
		s = s[:loc[2]] + s[loc[3]:]
	}
	return s, true
}

// replaceValue returns s with ${X/a/b} (//, /#, /%) applied, and whether
// the replacement starts with the home directory. ok is false when the
// pattern or the replacement is only known at run time, or the
// replacement holds & (bash 5.2 puts the matched text there).
func (a *analyzer) replaceValue(s string, r *syntax.Replace) (string, bool, bool) {
	pat, ok := trimPattern(&syntax.Expansion{Word: r.Orig})
	if !ok {
		return "", false, false
	}
	with := joinField(a.expandWord(r.With))
	if with.dyn || strings.Contains(with.val, "&") {
		return "", false, false
	}
	anchor := ""
	switch {
	case strings.HasPrefix(pat, "#"):
		pat, anchor = pat[1:], "^"
	case strings.HasPrefix(pat, "%"):
		pat, anchor = pat[1:], "$"
	}
	if pat == "" && anchor == "" {
		return s, false, true
	}
	expr, err := pattern.Regexp(pat, 0)
	if err != nil {
		return "", false, false
	}
	switch anchor {
	case "^":
		expr = "^(?:" + expr + ")"
	case "$":
		expr = "(?:" + expr + ")$"
	}
	rx, err := regexp.Compile("(?s)" + expr)
	if err != nil {
		return "", false, false
	}
	lit := func(string) string { return with.val }
	if r.All && anchor == "" {
		return rx.ReplaceAllStringFunc(s, lit), with.home, true
	}
	loc := rx.FindStringIndex(s)
	if loc == nil {
		return s, false, true
	}
	return s[:loc[0]] + with.val + s[loc[1]:], with.home && loc[0] == 0, true
}

// sliceValue returns ${X:offset:length} of s when both are literal
// numbers (counted in characters); ok is false otherwise, or where bash
// fails (a length that ends before the offset).
func sliceValue(s string, sl *syntax.Slice) (string, bool) {
	r := []rune(s)
	off, ok := arithLiteral(sl.Offset, 0)
	if !ok {
		return "", false
	}
	if off < 0 {
		off += len(r)
	}
	if off < 0 || off > len(r) {
		return "", true // past either end: nothing
	}
	end, ok := arithLiteral(sl.Length, len(r)-off)
	switch {
	case !ok:
		return "", false
	case sl.Length != nil && end < 0:
		end += len(r)
		if end < off {
			return "", false // substring expression < 0: the command does not run
		}
	default:
		end = off + end
	}
	return string(r[off:min(end, len(r))]), true
}

// arithLiteral returns the value of an arithmetic expression that is a
// literal number, optionally signed; dflt when there is none.
func arithLiteral(x syntax.ArithmExpr, dflt int) (int, bool) {
	switch x := x.(type) {
	case nil:
		return dflt, true
	case *syntax.Word:
		if l := strings.TrimSpace(x.Lit()); l != "" {
			return atoiSmall(l)
		}
	case *syntax.UnaryArithm:
		if n, ok := arithLiteral(x.X, 0); ok && x.X != nil && !x.Post {
			switch x.Op {
			case syntax.Minus:
				return -n, true
			case syntax.Plus:
				return n, true
			}
		}
	}
	return 0, false
}

// caseValue returns s with ${X^^}, ${X,,}, ${X^} or ${X,} applied; ok is
// false for any other operator.
func caseValue(s string, op syntax.ParExpOperator) (string, bool) {
	first := func(f func(rune) rune) string {
		r, n := utf8.DecodeRuneInString(s)
		if n == 0 {
			return s
		}
		return string(f(r)) + s[n:]
	}
	switch op {
	case syntax.UpperAll:
		return strings.ToUpper(s), true
	case syntax.LowerAll:
		return strings.ToLower(s), true
	case syntax.UpperFirst:
		return first(unicode.ToUpper), true
	case syntax.LowerFirst:
		return first(unicode.ToLower), true
	}
	return "", false
}
