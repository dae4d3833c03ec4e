package classify

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// transformKnown adds ${X%p}, ${X#p}, ${X/a/b}, ${X:o:l}, ${X,,}, ${X@L},
// ${X@E}, ${X@P} and the like where the line set X to a known value, computed as bash
// does: X=~/.ssh/id_rsa.pub; cat ${X%.pub} reads the private key. An
// array's elements are transformed one by one (${a[0]%.pub}, ${a[@]%.pub},
// $a for ${a[0]}). A transform it cannot compute (a pattern or a number
// only known at run time) is a run-time part whose possible value is the
// element untransformed (risk first: the value is on the line); so is the
// transform of a value itself only known at run time, with the transform
// of its possible value. It reports whether it added the expansion.
func (a *analyzer) transformKnown(b *fieldBuilder, p *syntax.ParamExp, name string, quoted bool) bool {
	if p.Param == nil || p.Excl || p.Length || p.Names != 0 || p.NestedParam != nil || !isTransform(p) {
		return false
	}
	in, ok := a.transformInput(p, name)
	if !ok {
		return false
	}
	for i, e := range in.elems {
		if i > 0 {
			b.split()
		}
		if !a.spendElem(e) {
			b.addDyn(a.source(p))
			return true
		}
		out, home, ok := a.transformValue(p, e)
		switch {
		case !ok || !in.known:
			b.addDefaulted(a.source(p), out)
		default:
			if (in.home || home) && strings.HasPrefix(out, "~") && (!b.started || b.empty()) {
				b.cur.home = true
			}
			a.addValue(b, out, quoted)
		}
	}
	return true
}

// isTransform reports whether p is one transform of a value: a slice, a
// replacement, a trim, a case change or an expansion of escapes.
func isTransform(p *syntax.ParamExp) bool {
	switch {
	case p.Slice != nil:
		return p.Exp == nil && p.Repl == nil
	case p.Repl != nil:
		return p.Exp == nil
	case p.Exp != nil:
		return isTrimOp(p.Exp.Op) || isCaseOp(p.Exp) || isEscapeOp(p.Exp)
	}
	return false
}

// transformIn is what a transform applies to: the values of the elements
// it names (known), or their possible values where they are only known at
// run time.
type transformIn struct {
	elems []string
	known bool
	home  bool // a scalar's value starts with the home directory
}

// transformInput returns the elements p's transform applies to: X's value,
// or the elements of an array (or of the positional parameters) the index
// selects. ok is false where the line does not know them (an index only
// known at run time, one past the end), or for ${a[@]:o:l}, which slices
// the array, not its elements.
func (a *analyzer) transformInput(p *syntax.ParamExp, name string) (transformIn, bool) {
	idx := ""
	if p.Index != nil {
		var ok bool
		if idx, ok = a.indexValue(name, p.Index); !ok {
			return transformIn{}, false
		}
	}
	if allDigits(name) && name != "0" {
		idx, name = name, "@"
	}
	if name == "*" {
		name = "@"
	}
	whole := idx == "@" || idx == "*" || name == "@" && idx == ""
	first := idx == "" || idx == "0" || idx == "@" || idx == "*"
	v, set := a.vars[name]
	switch {
	case !set || v.item || whole && p.Slice != nil:
		return transformIn{}, false
	case v.known && v.arr == nil && first && name != "@":
		return transformIn{elems: []string{v.val}, known: true, home: v.home}, true
	case v.known && v.arr != nil:
		elems, ok := pickElems(v.arr, v.keys, name, idx)
		return transformIn{elems: elems, known: true}, ok
	case v.hasDflt && v.dfltArr != nil:
		elems, ok := pickElems(v.dfltArr, nil, name, idx)
		return transformIn{elems: elems}, ok
	case v.hasDflt && first && name != "@":
		return transformIn{elems: []string{v.dflt}}, true
	}
	return transformIn{}, false
}

// transformValue applies p's transform to s, and reports whether the
// result starts with the home directory a replacement put there. When
// ok is false the result is only known at run time and out is a value
// it may have (s untransformed, or lowered for a case change).
func (a *analyzer) transformValue(p *syntax.ParamExp, s string) (out string, home, ok bool) {
	switch {
	case p.Slice != nil:
		out, ok = sliceValue(s, p.Slice)
	case p.Repl != nil:
		out, home, ok = a.replaceValue(s, p.Repl)
	case isTrimOp(p.Exp.Op):
		out, ok = a.trimValue(s, p.Exp)
	case isEscapeOp(p.Exp):
		return a.escapeValue(s, p.Exp)
	default:
		out, ok = a.caseValue(s, p.Exp)
		if !ok {
			return caseFallback(s, p.Exp), false, false
		}
	}
	if !ok {
		return s, false, false
	}
	return out, home, true
}

// trimRegexp returns the regular expression whose first group is what a
// trim operator removes, when its pattern is written literally.
func (a *analyzer) trimRegexp(e *syntax.Expansion) (*regexp.Regexp, bool) {
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
	rx, err := a.compile("(?s)" + expr)
	return rx, err == nil
}

// trimValue returns s with the trim operator e applied.
func (a *analyzer) trimValue(s string, e *syntax.Expansion) (string, bool) {
	rx, ok := a.trimRegexp(e)
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
	rx, err := a.compile("(?s)" + expr)
	if err != nil {
		return "", false, false
	}
	if r.All && anchor == "" {
		out, ok := a.replaceAll(s, rx, with.val)
		return out, with.home && ok, ok
	}
	loc := rx.FindStringIndex(s)
	if loc == nil {
		return s, false, true
	}
	return s[:loc[0]] + with.val + s[loc[1]:], with.home && loc[0] == 0, true
}

// replaceAll returns s with every match of rx replaced by with. The
// result's size is counted from the matches before it is built: each
// replacement may square a value's length (X=${X//?/$X}), so a result past
// maxValue is not built (ok false: only known at run time) and its size is
// charged to the line's budget, which escalates the line past maxLineValues.
// The matches are found a few first, then four times more: the size the
// first ones give, less what later ones may remove (the rest of s), is
// already past maxValue when with is long.
func (a *analyzer) replaceAll(s string, rx *regexp.Regexp, with string) (string, bool) {
	var locs [][]int
	for n := 16; ; n *= 4 {
		locs = rx.FindAllStringIndex(s, n)
		size := replacedSize(s, locs, with)
		if len(locs) < n {
			if size > maxValue {
				a.spendValue(size)
				return "", false
			}
			break
		}
		if least := size - (len(s) - locs[len(locs)-1][1]); least > maxValue || a.overTime() {
			a.spendValue(least)
			return "", false
		}
	}
	size := replacedSize(s, locs, with)
	var sb strings.Builder
	sb.Grow(size)
	last := 0
	for _, l := range locs {
		sb.WriteString(s[last:l[0]])
		sb.WriteString(with)
		last = l[1]
	}
	sb.WriteString(s[last:])
	return sb.String(), true
}

// replacedSize returns the length of s with the matches locs replaced by
// with.
func replacedSize(s string, locs [][]int, with string) int {
	size := len(s)
	for _, l := range locs {
		size += len(with) - (l[1] - l[0])
	}
	return size
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
// literal number (see bashInt), optionally signed or in parentheses; dflt
// when there is none.
func arithLiteral(x syntax.ArithmExpr, dflt int) (int, bool) {
	switch x := x.(type) {
	case nil:
		return dflt, true
	case *syntax.Word:
		if l := strings.TrimSpace(x.Lit()); l != "" {
			return bashInt(l)
		}
	case *syntax.ParenArithm:
		return arithLiteral(x.X, 0)
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

// maxRegexps bounds the expressions kept compiled for one line.
const maxRegexps = 256

// compile returns expr compiled, once per line: a line may use the same
// trim thousands of times.
func (a *analyzer) compile(expr string) (*regexp.Regexp, error) {
	if rx, ok := a.regexps[expr]; ok {
		return rx, nil
	}
	rx, err := regexp.Compile(expr)
	if err == nil && len(a.regexps) < maxRegexps {
		if a.regexps == nil {
			a.regexps = map[string]*regexp.Regexp{}
		}
		a.regexps[expr] = rx
	}
	return rx, err
}

// spendValue counts n bytes of values built for the line. Past
// maxLineValues (values this large only come from repeating one
// expansion thousands of times) the line is escalated and the walk stops;
// spendValue then reports false and the value is left to run time. Each
// 64 KiB spent the deadline is checked too: building that much is the
// slow part of a line that builds values in one long statement.
func (a *analyzer) spendValue(n int) bool {
	before := a.valueBytes
	a.valueBytes += n
	if a.valueBytes > maxLineValues {
		a.limit("values too large to classify")
	}
	if before>>16 != a.valueBytes>>16 {
		a.overTime()
	}
	return !a.halt
}

// elemCost is what one array element costs the line's values beyond its
// bytes: the field, key and copies built for it. A million one-byte
// elements are as much work as megabytes of text.
const elemCost = 32

// spendElem counts one array element e built for the line (see
// spendValue).
func (a *analyzer) spendElem(e string) bool {
	return a.spendValue(len(e) + elemCost)
}
