package classify

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates arithmetic recursively: a variable named in an arithmetic
// context has its value parsed as an expression in turn, and an array
// subscript there has its words expanded, command substitution included.
// x='a[$(rm -rf ~)]'; echo $((x)) runs rm -rf ~. The same expansion
// happens to the subscript of a name given to a builtin that sets or tests
// it (read 'a[$(…)]', printf -v, declare, [[ -v ]], ${!x}). The syntax of
// arithmetic is walked by walkNode; these functions follow the values the
// line knows. A value only known at run time is not judged as code: it is
// nearly always a number (a counter after a loop, wc -l's output), and
// judging it as eval would escalate ordinary loops.

// maxArithDepth bounds how deep variables naming variables are followed.
// Bash goes on to 1024 levels, so the line is escalated past it (see
// arithDeep), never allowed with the rest of the chain unread: a dozen
// plain assignments i1=i0; i2=i1; … would otherwise hide i0='x[$(…)]'.
// No script names a variable through anything near this many others.
const maxArithDepth = 64

// arithTestOps are the [[ ]] operators whose operands are arithmetic.
var arithTestOps = map[syntax.BinTestOperator]bool{
	syntax.TsEql: true, syntax.TsNeq: true, syntax.TsLeq: true, syntax.TsGeq: true, syntax.TsLss: true, syntax.TsGtr: true,
}

// arithNode follows the values a node evaluates as arithmetic; walkNode
// calls it for every node it visits.
func (a *analyzer) arithNode(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.ArithmExp:
		a.arith(n.X)
	case *syntax.ArithmCmd:
		a.arith(n.X)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			a.arith(x)
		}
	case *syntax.ParamExp:
		if n.Index != nil {
			a.arith(n.Index)
		}
		if n.Slice != nil {
			a.arith(n.Slice.Offset)
			a.arith(n.Slice.Length)
		}
		if n.Excl && n.Param != nil && n.Index == nil && n.Names == 0 {
			a.nameValue(n.Param.Value) // ${!x}: x's value is a name, maybe subscripted
		}
	case *syntax.BinaryTest:
		if arithTestOps[n.Op] {
			a.arith(n.X)
			a.arith(n.Y)
		}
	case *syntax.CStyleLoop:
		a.arith(n.Init) // for ((init; cond; post))
		a.arith(n.Cond)
		a.arith(n.Post)
	case *syntax.UnaryTest:
		if w, ok := n.X.(*syntax.Word); ok && n.Op == syntax.TsVarSet {
			for _, f := range a.arithFields(w) {
				a.nameText(f)
			}
		}
	}
}

// arith follows the words of an arithmetic expression (or a [[ ]] operand
// evaluated as one) to the values they evaluate.
func (a *analyzer) arith(x syntax.Node) {
	if x == nil {
		return
	}
	syntax.Walk(x, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok {
			return true
		}
		if name, idx, ok := arithElem(w); ok {
			// m[k]: the element's value is evaluated.
			key, known := a.indexValue(name, idx)
			a.arithElemVal(name, key, known, 0)
			return false
		}
		for _, f := range a.arithFields(w) {
			for _, t := range a.fieldTexts(f) {
				a.arithText(t, 0) // $(($v)), $((${!p})): what it may hold
			}
		}
		a.arithSubsts(w)
		return false
	})
}

// arithSubsts follows the output of the command substitutions in an
// arithmetic word ($(( $(printf …) ))): bash evaluates it as arithmetic,
// so what echo or printf may print there (stream.possible: a literal
// x[$(…)], never a run-time part's source text) is followed. The
// substitution is walked here; within walkNode, which visits it next,
// only here (substDone).
func (a *analyzer) arithSubsts(w *syntax.Word) {
	for _, p := range wordSubsts(w) {
		out := a.subst(p.Stmts)
		if a.walkDepth > 0 {
			if a.substDone == nil {
				a.substDone = map[*syntax.CmdSubst]bool{}
			}
			a.substDone[p] = true
		}
		a.arithText(out.possible, 0)
	}
}

// wordSubsts returns the command substitutions a word's value is made of
// (directly or in double quotes).
func wordSubsts(w *syntax.Word) []*syntax.CmdSubst {
	var out []*syntax.CmdSubst
	for _, p := range w.Parts {
		if q, ok := p.(*syntax.DblQuoted); ok {
			for _, p := range q.Parts {
				if c, ok := p.(*syntax.CmdSubst); ok {
					out = append(out, c)
				}
			}
		}
		if c, ok := p.(*syntax.CmdSubst); ok {
			out = append(out, c)
		}
	}
	return out
}

// arithFields returns the value of a word evaluated as arithmetic. Words
// with command or process substitutions are left out: walkNode walks
// those, and their output is a run-time value like any other.
func (a *analyzer) arithFields(w *syntax.Word) []field {
	if l := w.Lit(); l != "" {
		return []field{{val: l}}
	}
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			return nil
		}
	}
	a.dry++ // expanding again judges nothing new
	fs := a.expandWord(w)
	a.dry--
	if len(fs) == 0 {
		return nil
	}
	return []field{joinField(fs)} // no word splitting in arithmetic or [[ ]]
}

// arithText follows an arithmetic expression given as text: substitutions
// in it (in a subscript) run, and every variable it names is evaluated in
// turn.
func (a *analyzer) arithText(text string, depth int) {
	if text == maybeMany {
		a.limit("a value that may hold too many texts used in arithmetic or as a name")
		return
	}
	if text == "" || a.arithDeep(depth) || !a.arithEnter("="+text) {
		return
	}
	defer a.arithLeave()
	// A step per value followed (and the deadline read with it): eight
	// variables each naming the previous one n times cost n^8 walks.
	if !a.charge(1 + len(text)/64) {
		return
	}
	if strings.ContainsAny(text, "$`") {
		a.expansionCode(text)
	}
	for i := 0; i < len(text); {
		c := text[i]
		j := i + 1
		switch {
		case isDigit(c):
			for j < len(text) && isNameByte(text[j]) {
				j++ // 42, 0x1F, 64#zz: a number
			}
		case isNameByte(c):
			for j < len(text) && isNameByte(text[j]) {
				j++
			}
			if k := closingBracket(text, j); k > j {
				// m[k] in a value: the subscripted element is
				// evaluated; the subscript itself is scanned next.
				key, known := a.textSubscript(text[i:j], text[j+1:k])
				a.arithElemVal(text[i:j], key, known, depth+1)
			} else {
				a.arithVar(text[i:j], depth+1)
			}
		}
		i = j
	}
}

// arithVar evaluates the variable name as arithmetic does: its value (an
// array's element 0) is an expression in turn. A nameref is read through
// (declare -n r=i: $((r)) evaluates i's value; r='a[0]': that element).
func (a *analyzer) arithVar(name string, depth int) {
	if a.arithDeep(depth) {
		return
	}
	name = a.refName(name)
	if t, ref := a.refs[name]; ref {
		// a target only known at run time, or an element
		if !a.arithEnter("&" + name + "\x00" + t) {
			return
		}
		defer a.arithLeave()
		elem, isElem := strings.CutPrefix(t, refElem)
		if arr, sub, ok := elemTarget(elem); isElem && ok {
			key, known := a.textSubscript(arr, sub)
			a.arithElemVal(arr, key, known, depth+1)
		}
		if t == refRuntime {
			a.arithAnyVar(depth + 1)
		}
		return
	}
	v, ok := a.vars[name]
	switch {
	case ok && !v.known && v.hasDflt:
		// a run-time value the line may have given (a[$i]=v, read with
		// a run-time IFS): what the line gave is followed (fail closed)
		a.arithText(v.dflt, depth)
		for _, t := range v.maybe {
			a.arithText(t, depth) // v=${x:-$OPTARG}: OPTARG's texts too
		}
	case !ok || !v.known:
		for _, t := range v.maybe {
			a.arithText(t, depth) // a text the line may have put there
		}
		return // the environment's, or a run-time value
	case v.arr != nil:
		a.arithPick(name, v, "0", true, depth)
	default:
		a.arithText(v.val, depth)
	}
}

// arithAnyVar follows, as arithmetic through a nameref whose target is
// only known at run time does, every value the line gave a variable: the
// target may be any of them (declare -n r; mapfile -t r <<< i, for r in
// i, ${r:=i} point r at i). Run-time values are not judged, as anywhere.
func (a *analyzer) arithAnyVar(depth int) {
	for _, n := range slices.Sorted(maps.Keys(a.vars)) {
		v := a.vars[n]
		if strings.HasPrefix(n, "\x00") {
			continue // the analyzer's own (indirectJoin)
		}
		if _, ref := a.refs[n]; ref {
			continue
		}
		switch {
		case v.known && v.arr != nil:
			a.arithPick(n, v, "", false, depth) // r may name any element
		case v.known:
			a.arithText(v.val, depth)
		case v.hasDflt:
			a.arithText(v.dflt, depth)
			for _, e := range v.dfltArr {
				a.arithText(e, depth)
			}
		}
		for _, t := range v.maybe {
			a.arithText(t, depth)
		}
	}
}

// arithDeep reports whether depth is past maxArithDepth, and then
// escalates the line: what lies deeper is not followed, so the line may
// run code the walk never saw. (A cycle ends earlier: see arithEnter.)
func (a *analyzer) arithDeep(depth int) bool {
	if depth <= maxArithDepth {
		return false
	}
	a.limit("variables naming variables nested too deep in arithmetic")
	return true
}

// arithEnter marks a value ("=" and its text) or a nameref ("&", its
// name and target) as being followed, unless it already is: then the
// names lead back to it (x=x+1; $((x)), declare -n r='r[0]'), bash
// repeats the same evaluation until its recursion limit, and following it
// again would judge nothing new. The key holds the value itself, so a
// name whose value changed on the way is followed again.
func (a *analyzer) arithEnter(key string) bool {
	if slices.Contains(a.arithBusy, key) {
		return false
	}
	a.arithBusy = append(a.arithBusy, key)
	return true
}

// arithLeave ends the innermost arithEnter.
func (a *analyzer) arithLeave() { a.arithBusy = a.arithBusy[:len(a.arithBusy)-1] }

// arithElemVal evaluates the element name[key] as arithmetic does (known:
// the line knows the key; see indexValue).
func (a *analyzer) arithElemVal(name, key string, known bool, depth int) {
	if a.arithDeep(depth) {
		return
	}
	target := a.refName(name)
	v, ok := a.vars[target]
	if _, ref := a.refs[target]; ref || !ok || !v.known || v.arr == nil {
		a.arithVar(name, depth+1) // a scalar's element 0, or a nameref's target
		return
	}
	a.arithPick(target, v, key, known, depth)
}

// arithPick evaluates the elements of the array v (named name) the key
// picks by its keys (a=([5]=x): a[5] is x; a[-1] the highest index's).
// Where the line cannot tell which element the key names (a key only
// known at run time, one an element with a run-time key may have
// replaced, one no element has), every element is followed.
func (a *analyzer) arithPick(name string, v varVal, key string, known bool, depth int) {
	elems := v.arr
	if known {
		if picked, ok := pickElems(v.arr, v.keys, name, key); ok {
			elems = picked
		}
	}
	for _, e := range elems {
		a.arithText(e, depth)
	}
}

// textSubscript returns the key of name's element a subscript's text
// names (a[010], m[k] in a value evaluated as arithmetic, a nameref's
// target 'a[1]'): an associative array's literal key, an indexed array's
// number; ok is false when it is only known at run time.
func (a *analyzer) textSubscript(name, sub string) (string, bool) {
	if a.isAssoc(name) {
		return literalKey(sub)
	}
	return indexNumber(sub)
}

// arithElem reports whether an arithmetic word is an array element alone
// (m[k], ${m[k]}), returning the array's name and the subscript.
func arithElem(w *syntax.Word) (string, syntax.ArithmExpr, bool) {
	if len(w.Parts) != 1 {
		return "", nil, false
	}
	p, ok := w.Parts[0].(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Index == nil || p.Excl || p.Length || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 {
		return "", nil, false
	}
	if l, ok := p.Index.(*syntax.Word); ok && (l.Lit() == "@" || l.Lit() == "*") {
		return "", nil, false
	}
	return p.Param.Value, p.Index, true
}

// closingBracket returns the index of the ] that closes a [ at text[i],
// or -1.
func closingBracket(text string, i int) int {
	if i >= len(text) || text[i] != '[' {
		return -1
	}
	depth := 0
	for j := i; j < len(text); j++ {
		switch text[j] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// nameValue follows ${!x}: the value of x names a variable, whose
// subscript, if any, is expanded.
func (a *analyzer) nameValue(name string) {
	for _, t := range maybeTexts(a.vars[name]) {
		a.nameText(field{val: t}) // a known value, or one a path may give
	}
}

// nameText follows a variable name given as a value (read NAME, printf -v
// NAME, [[ -v NAME ]]): an array subscript in it is arithmetic.
func (a *analyzer) nameText(f field) {
	if f.dyn {
		for _, t := range a.fieldTexts(f) {
			a.nameText(field{val: t}) // read "$v": what v may hold
		}
		return
	}
	if f.val == maybeMany {
		a.arithText(f.val, 0) // escalates
		return
	}
	i := strings.IndexByte(f.val, '[')
	j := strings.LastIndexByte(f.val, ']')
	switch {
	case i <= 0 || j <= i:
	case a.isAssoc(f.val[:i]):
		a.expansionCode(f.val[i+1 : j]) // a key: only its substitutions run
	default:
		a.arithText(f.val[i+1:j], 0)
	}
}

func isNameByte(c byte) bool {
	return c == '_' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// intValue returns what an assignment of v to an integer variable (declare
// -i) stores: the value is evaluated as arithmetic, so a plain number is
// kept and anything else becomes a run-time value once followed.
func (a *analyzer) intValue(v varVal) varVal {
	switch {
	case v.known && v.arr == nil && allDigits(v.val):
		return v
	case v.known && v.arr != nil:
		for _, e := range v.arr {
			a.arithText(e, 0)
		}
	case v.known:
		a.arithText(v.val, 0)
	case v.hasDflt:
		a.arithText(v.dflt, 0) // ${n:=V} on a run-time n may store V
	}
	for _, t := range v.maybe {
		a.arithText(t, 0)
	}
	return varVal{}
}
