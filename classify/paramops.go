package classify

import (
	"strings"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// expandKnownOp expands ${X:-y}, ${X-y}, ${X:=y}, ${X=y}, ${X:?m}, ${X?m},
// ${X:+y} and ${X+y} when the line set X to a known value, as bash does:
// X=/; rm -rf ${X:?}etc is rm -rf /etc. It reports whether it did; an X
// whose value is not known stays a run-time part that may be empty.
func (a *analyzer) expandKnownOp(b *fieldBuilder, p *syntax.ParamExp, name string, quoted bool) bool {
	op := p.Exp.Op
	v, ok := a.vars[name]
	if !ok || !v.known || v.arr != nil || !isDefaultOp(op) && !isAlternateOp(op) {
		return false
	}
	colon := op == syntax.DefaultUnsetOrNull || op == syntax.AssignUnsetOrNull ||
		op == syntax.ErrorUnsetOrNull || op == syntax.AlternateUnsetOrNull
	useVal := v.val != "" || !colon // set, and not null where null counts as unset
	switch {
	case isAlternateOp(op) && !useVal:
		b.started = true // ${X:+y} with X empty: nothing
	case isAlternateOp(op), !useVal && op != syntax.ErrorUnset && op != syntax.ErrorUnsetOrNull:
		b.started = true
		if p.Exp.Word != nil {
			a.inOpWord(func() {
				for _, part := range p.Exp.Word.Parts {
					a.expandPart(b, part, quoted, false)
				}
			})
		}
	case useVal:
		a.addVar(b, name, a.source(p), quoted)
	default:
		return false // ${X:?} with X empty: the command does not run
	}
	return true
}

// assignDefault records what ${X:=y} and ${X=y} leave in X for later
// words, as bash assigns y where X is empty (:=) or unset: y when the line
// knew X was empty, and "the run-time value, or y" when the line did not
// know X (see varVal.dflt). A y with a substitution in it is only known
// at run time.
func (a *analyzer) assignDefault(p *syntax.ParamExp, name string) {
	op := p.Exp.Op
	if op != syntax.AssignUnset && op != syntax.AssignUnsetOrNull || !isVarName(name) {
		return
	}
	v, set := a.vars[name]
	if _, symbolic := symbolicSamples[name]; symbolic && !set {
		return // HOME, PWD, SHELL are set and not empty
	}
	if set && (v.item || v.arr != nil || v.known && (v.val != "" || op == syntax.AssignUnset)) {
		return // a value that stays
	}
	y, ok := field{}, true
	if w := p.Exp.Word; w != nil {
		if fs, memo := a.opWordFields(w); memo {
			y = joinField(fs)
		} else if ok = !a.hasSubst(w); ok {
			a.inOpWord(func() { y = joinField(a.expandWord(w)) })
		}
	}
	switch {
	case !ok || y.dyn:
		a.setVar(name, varVal{})
	case set && v.known:
		a.setVar(name, varVal{val: y.val, known: true, home: y.home})
	default:
		a.setVar(name, varVal{dflt: y.val, hasDflt: true})
	}
}

// isIndirectOp reports whether p is ${!X op w}: the operator applies to
// the variable X names, which the line does not know (the word is judged
// as for an unknown variable).
func isIndirectOp(p *syntax.ParamExp) bool {
	return p.Excl && p.Param != nil && p.Exp != nil && !p.Length && p.Index == nil && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.NestedParam == nil
}

// isAlternateOp reports whether a parameter operator gives its word when
// the value is set (${X:+y}, ${X+y}).
func isAlternateOp(op syntax.ParExpOperator) bool {
	return op == syntax.AlternateUnset || op == syntax.AlternateUnsetOrNull
}

// isDefaultOp reports whether a parameter operator leaves a set value as it
// is (${X:-d}, ${X:?msg}, ${X:=d}).
func isDefaultOp(op syntax.ParExpOperator) bool {
	switch op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull,
		syntax.AssignUnset, syntax.AssignUnsetOrNull:
		return true
	}
	return false
}

// isTrimOp reports whether a parameter operator removes a matching prefix
// (${X#p}, ${X##p}) or suffix (${X%p}, ${X%%p}).
func isTrimOp(op syntax.ParExpOperator) bool {
	switch op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		return true
	}
	return false
}

// symbolicSamples lists, for the parameters the analyzer knows only by kind
// ($PWD is taken as ".", $HOME as "~", $SHELL as /bin/sh), values they may
// really have. A trim of such a parameter is judged on all of them: the
// value it stands for is only kept when the trim is sure to leave it as it
// is, a result that is the same for every sample ("" for ${PWD%%/*}) is
// taken as known, and anything else is only known at run time.
var symbolicSamples = map[string][]string{
	"PWD":   {"/", "/a", "/x/y", "/home/user/project", "/root", "/tmp/Z9._-"},
	"HOME":  {"/", "/a", "/x/y", "/home/user", "/root", "/Users/Z9._-"},
	"SHELL": {"/bin/sh", "/bin/bash", "/usr/bin/zsh", "/usr/local/bin/fish"},
	"BASH":  {"/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"},
}

type trimKind uint8

const (
	trimKeep  trimKind = iota // the value is left as it is
	trimConst                 // the result is known
	trimDyn                   // the result is only known at run time
)

// trimPattern returns the pattern of a trim operator when it is written
// literally (quoted parts match themselves).
func trimPattern(e *syntax.Expansion) (string, bool) {
	if e.Word == nil {
		return "", true
	}
	var sb strings.Builder
	for _, p := range e.Word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			sb.WriteString(p.Value)
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v = ansiC(v) // $'.pub'
			}
			sb.WriteString(pattern.QuoteMeta(v, 0))
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// trimKeeps reports whether a trim cannot change what a symbolic value
// stands for: only trailing slashes are removed (${PWD%/}).
func trimKeeps(e *syntax.Expansion) bool {
	pat, ok := trimPattern(e)
	return ok && (e.Op == syntax.RemSmallSuffix || e.Op == syntax.RemLargeSuffix) && strings.Trim(pat, "/") == ""
}

// trimSymbolic judges a trim of a symbolic parameter (see symbolicSamples).
func (a *analyzer) trimSymbolic(name string, e *syntax.Expansion) (string, trimKind) {
	if trimKeeps(e) {
		return "", trimKeep
	}
	rx, ok := a.trimRegexp(e)
	if !ok {
		return "", trimDyn
	}
	result := ""
	for i, s := range symbolicSamples[name] {
		if loc := rx.FindStringSubmatchIndex(s); loc != nil {
			s = s[:loc[2]] + s[loc[3]:]
		}
		if i > 0 && s != result {
			return "", trimDyn
		}
		result = s
	}
	return result, trimConst
}

// addOpWord adds ${X:-w}, ${X-w}, ${X:=w}, ${X=w}, ${X:+w} or ${X+w} where
// the line does not know X's value (a variable it never set, read, or set
// from a substitution): a part only known at run time, whose word w is
// also a possible value. The command is judged on both, as for a variable
// an earlier ${X:=w} ran on (addDefaulted): cat ${X:-~/.ssh/id_rsa} reads
// the key wherever X is unset. An empty name stands for a variable only
// known at run time (${!X:-w}). It reports whether it did.
func (a *analyzer) addOpWord(b *fieldBuilder, p *syntax.ParamExp, name string, quoted bool) bool {
	op := p.Exp.Op
	if p.Exp.Word == nil || !isDefaultOp(op) && !isAlternateOp(op) || op == syntax.ErrorUnset || op == syntax.ErrorUnsetOrNull {
		return false // ${X:?message}: the word is a message, not a value
	}
	if v, set := a.vars[name]; name != "" && set && (v.known || v.item) {
		return false // expandKnownOp's, or a for-loop word (never empty)
	}
	w, ok := a.opWordValue(p.Exp.Word, quoted)
	if !ok {
		return false
	}
	if v := a.vars[name]; name != "" && v.hasDflt && v.dflt != "" && isDefaultOp(op) && (w == "" || loopItem(field{val: w})) {
		// X=README; [ … ] && X=~/.aws/credentials; "${X:-z}": X is not
		// empty on either path, and its possible value says more than z.
		w = v.dflt
	}
	b.addDefaulted(a.source(p), w)
	return true
}

// opWordValue expands the word of a parameter operator as bash does where
// it uses it (tilde, known variables; nested run-time parts taken as their
// own possible values, else empty). A word with a substitution in it is
// left alone: it was already walked, and expanding it again would walk
// it twice.
func (a *analyzer) opWordValue(w *syntax.Word, quoted bool) (string, bool) {
	if a.hasSubst(w) {
		return "", false
	}
	var wb fieldBuilder
	a.inOpWord(func() {
		for i, part := range w.Parts {
			a.expandPart(&wb, part, quoted, i == 0)
		}
	})
	fs := wb.done()
	a.opWord.last, a.opWord.fields = w, fs
	var vals []string
	for _, f := range fs {
		vals = append(vals, f.possible())
	}
	return strings.Join(vals, " "), true
}

// possible returns a value the field may have at run time: its value when
// known, else with each run-time part taken as the default it may have
// (alt) or as empty (bare).
func (f field) possible() string {
	switch {
	case f.hasAlt:
		return f.alt
	case f.dyn:
		return f.bare
	}
	return f.val
}
