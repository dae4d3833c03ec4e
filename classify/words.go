package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// field is one word after shell expansion: quote removal, ANSI-C decoding,
// tilde, brace expansion, known variables and $IFS splitting.
type field struct {
	val       string    // the value; parts only known at run time keep their source text
	dyn       bool      // some part is only known at run time
	dynPrefix bool      // the value starts with a part only known at run time
	dynEnd    int       // where in val the last part only known at run time ends
	quoted    bool      // some part was quoted
	glob      bool      // holds an unquoted glob metacharacter
	home      bool      // starts with the home directory (~, $HOME, ${HOME})
	ifs       bool      // $IFS was expanded unquoted, or the word was split on a custom IFS
	hist      bool      // holds an interactive history expansion (!!, !-1, !42, !?x)
	hasAlt    bool      // alt is set
	src       stream    // what the command or process substitutions inside produce
	bare      string    // the value with every run-time part taken as empty
	alt       string    // with hasAlt: bare, but a variable an earlier ${X:=y} ran on taken as y
	maybe     *[]string // texts a substitution whose output is not known may print (its known parts), followed as arithmetic and names; a pointer keeps fields comparable
}

// maxBraceFields bounds brace expansion so that {1..99999999} cannot blow up.
const maxBraceFields = 256

// expandAssign expands the value of an assignment: one field, and what
// its expansions produce is not split (x=$(printf 'a\nb') keeps the
// newline, which eval "$x" then reads as two commands).
func (a *analyzer) expandAssign(w *syntax.Word) field {
	saved := a.noSplit
	a.noSplit = true
	defer func() { a.noSplit = saved }()
	return joinField(a.expandWord(w))
}

// expandWord expands one word into zero or more fields, analysing every
// substitution inside it on the way.
func (a *analyzer) expandWord(w *syntax.Word) []field {
	if w == nil || len(w.Parts) == 0 {
		return nil
	}
	braces := false
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			braces = syntax.SplitBraces(w)
			break
		}
	}
	if !braces {
		if len(w.Parts) == 1 {
			// Fast path: a plain literal word.
			if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "\\~!*?[") {
				return []field{{val: l.Value, bare: l.Value}}
			}
		}
		return a.expandParts(w.Parts)
	}
	seqs := braceSeqs(w.Parts)
	var out []field
	for _, parts := range seqs {
		out = append(out, a.expandParts(joinLits(parts))...)
	}
	return out
}

// fieldBuilder accumulates parts into fields, splitting where an unquoted
// expansion would be split by the shell. The current field's texts are
// built in strings.Builders (cur's val, bare and alt are set when it is
// done): a word of 100 000 quoted parts (”a”a…) is then built in linear
// time, not copied whole for every part.
type fieldBuilder struct {
	out            []field
	cur            field
	val, bare, alt strings.Builder
	started        bool
}

// empty reports whether the current field has no text yet.
func (b *fieldBuilder) empty() bool { return b.val.Len() == 0 }

func (b *fieldBuilder) add(s string) {
	s = b.bound(s)
	b.val.WriteString(s)
	b.addBare(s)
	b.started = true
}

// addBare adds s to what the field is with its run-time parts taken as
// empty (or defaulted, for alt).
func (b *fieldBuilder) addBare(s string) {
	b.bare.WriteString(s)
	if b.cur.hasAlt {
		b.alt.WriteString(s)
	}
}

// addDefaulted adds a variable only known at run time that an earlier
// ${X:=y} set to dflt where it was empty or unset.
func (b *fieldBuilder) addDefaulted(src, dflt string) {
	b.addDyn(src)
	if !b.cur.hasAlt {
		b.alt.WriteString(b.bare.String())
		b.cur.hasAlt = true
	}
	b.alt.WriteString(dflt)
}

// bound keeps values under maxValue: values this large only come from
// doubling tricks; the work stays bounded and the value is no longer trusted.
func (b *fieldBuilder) bound(s string) string {
	if b.val.Len()+len(s) > maxValue {
		b.cur.dyn = true
		return s[:max(0, min(len(s), maxValue-b.val.Len()))]
	}
	return s
}

// addDyn adds a part only known at run time, keeping its source text.
func (b *fieldBuilder) addDyn(src string) {
	if !b.started || b.empty() {
		b.cur.dynPrefix = true
	}
	b.cur.dyn = true
	b.val.WriteString(b.bound(src))
	b.cur.dynEnd = b.val.Len()
	b.started = true
}

// finish returns the current field with its texts set.
func (b *fieldBuilder) finish() field {
	f := b.cur
	f.val, f.bare = b.val.String(), b.bare.String()
	if f.hasAlt {
		f.alt = b.alt.String()
	}
	return f
}

func (b *fieldBuilder) split() {
	if b.started {
		b.out = append(b.out, b.finish())
	}
	keep := field{ifs: b.cur.ifs, src: b.cur.src}
	b.cur = keep
	b.val, b.bare, b.alt = strings.Builder{}, strings.Builder{}, strings.Builder{}
	b.started = false
}

func (b *fieldBuilder) done() []field {
	if b.started {
		b.out = append(b.out, b.finish())
	}
	return b.out
}

func (a *analyzer) expandParts(parts []syntax.WordPart) []field {
	var b fieldBuilder
	for i, p := range parts {
		a.expandPart(&b, p, false, i == 0)
	}
	return b.done()
}

// expandPart adds one word part to b. quoted is true inside double quotes.
func (a *analyzer) expandPart(b *fieldBuilder, p syntax.WordPart, quoted, first bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		a.expandLit(b, p.Value, quoted, first)
	case *syntax.SglQuoted:
		b.cur.quoted = true
		v := p.Value
		if p.Dollar {
			v = ansiC(v)
		}
		b.add(v)
	case *syntax.DblQuoted:
		b.cur.quoted = true
		b.started = true
		for j, q := range p.Parts {
			a.expandPart(b, q, true, first && j == 0)
		}
	case *syntax.ParamExp:
		a.expandParam(b, p, quoted)
	case *syntax.CmdSubst:
		out := a.subst(p.Stmts)
		b.cur.src.merge(out)
		if out.textKnown {
			a.addValue(b, strings.TrimRight(out.text, "\n"), quoted)
			return
		}
		src := a.source(p)
		b.addDyn(src)
		if out.possible != "" {
			b.cur.maybe = addMaybe(b.cur.maybe, strings.TrimRight(out.possible, "\n"))
		}
		if a.xargsFill && src == xargsInput {
			b.addBare(xargsInputBare) // never empty (see xargsInputBare)
		}
	case *syntax.ProcSubst:
		out := a.subst(p.Stmts)
		b.cur.src.merge(out)
		b.cur.src.traits |= trProcSubst
		b.addDyn(a.source(p))
	case *syntax.ArithmExp:
		a.walkNode(p)
		b.addDyn(a.source(p))
	case *syntax.ExtGlob:
		b.cur.glob = true
		b.add(a.source(p))
	default:
		b.addDyn(a.source(p))
	}
}

// expandLit performs quote removal on a literal part and notes globs, tilde
// and history expansions.
func (a *analyzer) expandLit(b *fieldBuilder, v string, quoted, first bool) {
	if !quoted && first && a.lang != syntax.LangPOSIX && len(v) > 1 && v[0] == '~' && (v[1] == '+' || v[1] == '-') &&
		(len(v) == 2 || v[2] == '/') {
		// bash's ~+ is $PWD and ~- is $OLDPWD (cd /; cd /tmp; cd ~- goes
		// to /); dash leaves them as they are.
		name := map[byte]string{'+': "PWD", '-': "OLDPWD"}[v[1]]
		a.expandParam(b, &syntax.ParamExp{Short: true, Param: &syntax.Lit{Value: name}}, true)
		a.expandLit(b, v[2:], quoted, false)
		return
	}
	if !quoted && first && a.reassigned("HOME") {
		if at := tildes(v); len(at) > 0 {
			a.expandTildes(b, v, at)
			return
		}
	}
	if !quoted && first && strings.HasPrefix(v, "~") {
		b.cur.home = true
	}
	if !quoted && hasHistoryExpansion(v) {
		b.cur.hist = true
	}
	if strings.IndexByte(v, '\\') < 0 {
		if !quoted && strings.ContainsAny(v, "*?[") {
			b.cur.glob = true
		}
		b.add(v)
		return
	}
	var sb strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			n := v[i+1]
			if !quoted || strings.IndexByte("$`\"\\\n", n) >= 0 {
				if n != '\n' {
					sb.WriteByte(n)
				}
				i++
				continue
			}
		}
		if !quoted && (c == '*' || c == '?' || c == '[') {
			b.cur.glob = true
		}
		sb.WriteByte(c)
	}
	b.add(sb.String())
}

// addValue adds the value of an expansion: inside quotes it joins the field,
// unquoted it is split on the current IFS.
func (a *analyzer) addValue(b *fieldBuilder, v string, quoted bool) {
	if quoted || a.noSplit {
		b.add(v)
		return
	}
	ifs := a.ifsChars()
	if ifs != " \t\n" && strings.ContainsAny(v, ifs) {
		b.cur.ifs = true
	}
	start := 0
	for i := 0; i < len(v); i++ {
		if strings.IndexByte(ifs, v[i]) >= 0 {
			if i > start {
				b.add(v[start:i])
			}
			b.split()
			start = i + 1
		}
	}
	if start < len(v) {
		b.add(v[start:])
	}
	if strings.ContainsAny(v, "*?[") {
		b.cur.glob = true
	}
}

func (a *analyzer) ifsChars() string {
	if v, ok := a.vars["IFS"]; ok && v.known {
		if v.val == "" {
			return "\x00"
		}
		return v.val
	}
	return " \t\n"
}

// expandParam resolves a parameter expansion when its value is known on
// this line (an earlier literal assignment, $HOME, $IFS, $PWD).
func (a *analyzer) expandParam(b *fieldBuilder, p *syntax.ParamExp, quoted bool) {
	if !a.nestedParam(p) {
		b.addDyn(a.source(p))
		return
	}
	p = a.resolveParam(p)
	name := ""
	if p.Param != nil {
		name = p.Param.Value
	}
	if strings.HasPrefix(name, indirectPrefix) {
		defer delete(a.vars, name)
	}
	if isPromptOp(p) {
		a.promptExpand(p)
	}
	if name == "IFS" {
		if !quoted {
			b.cur.ifs = true
			b.split()
			return
		}
		b.add(" ")
		return
	}
	if elems, ok := a.arrayElems(p); ok {
		for i, e := range elems {
			if i > 0 {
				b.split()
			}
			if !a.spendElem(e) {
				b.addDyn(a.source(p))
				return
			}
			a.addValue(b, e, quoted)
		}
		return
	}
	if elems, ok := a.arrayDefaults(p); ok {
		for i, e := range elems {
			if i > 0 {
				b.split()
			}
			if !a.spendElem(e) {
				b.addDyn(a.source(p))
				return
			}
			b.addDefaulted(a.source(p), e)
		}
		return
	}
	plain := p.Param != nil && !p.Excl && !p.Length && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Names == 0 && p.NestedParam == nil
	if plain && p.Exp != nil {
		defer a.assignDefault(p, name)
	}
	if plain && p.Exp != nil && a.expandKnownOp(b, p, name, quoted) {
		return
	}
	if a.transformKnown(b, p, name, quoted) {
		return
	}
	if plain && p.Exp != nil && isTrimOp(p.Exp.Op) && !a.reassigned(name) {
		if _, ok := symbolicSamples[name]; ok {
			switch v, kind := a.trimSymbolic(name, p.Exp); kind {
			case trimConst:
				a.addValue(b, v, quoted)
				return
			case trimDyn:
				b.addDyn(a.source(p))
				return
			}
			// trimKeep: the value stays what it stands for.
		}
	}
	if plain && (p.Exp == nil || isDefaultOp(p.Exp.Op) || isTrimOp(p.Exp.Op) && trimKeeps(p.Exp)) {
		switch {
		case a.reassigned(name):
			// Set on this line: its value, not what it stands for.
		case name == "SHELL" || name == "BASH":
			b.add("/bin/sh")
			return
		case name == "HOME":
			if !b.started || b.empty() {
				b.cur.home = true
			}
			b.add("~")
			return
		case name == "PWD":
			d, ok := a.pwdValue()
			if !ok {
				break
			}
			if strings.HasPrefix(d, "~") && (!b.started || b.empty()) {
				b.cur.home = true
			}
			b.add(d)
			return
		}
		if p.Exp == nil && a.addVar(b, name, a.source(p), quoted) {
			return
		}
	}
	if plain && p.Exp != nil && a.addOpWord(b, p, name, quoted) {
		return
	}
	if isIndirectOp(p) && a.addOpWord(b, p, "", quoted) {
		return // ${!X:-w}: whatever X names, w where that is unset
	}
	if p.Names != 0 && p.Param != nil && a.addPrefixNames(b, p) {
		return
	}
	b.addDyn(a.source(p))
}

// reassigned reports whether name was set earlier on the line.
func (a *analyzer) reassigned(name string) bool {
	_, ok := a.vars[name]
	return ok
}

// addVar adds the value of the variable name (written src) when this line
// set it: a known value, or a for-loop word (never empty). It reports
// whether it did.
func (a *analyzer) addVar(b *fieldBuilder, name, src string, quoted bool) bool {
	v, ok := a.vars[name]
	if ok && v.tree != nil {
		b.cur.src.addTree(stream{tree: v.tree}) // cat "$f", f a name find ~ printed
	}
	switch {
	case ok && v.hasDflt:
		b.addDefaulted(src, v.dflt)
	case ok && v.item:
		b.addDyn(src)
		b.addBare(xargsInputBare) // a for-loop word is never empty
	case ok && v.known && !a.spendValue(len(v.val)):
		b.addDyn(src)
	case ok && v.known:
		if v.home && (!b.started || b.empty()) {
			b.cur.home = true
		}
		if v.ifs {
			b.cur.ifs = true
		}
		a.addValue(b, v.val, quoted)
	default:
		return false
	}
	return true
}

// source returns the source text of a node in the script being analysed.
func (a *analyzer) source(n syntax.Node) string { return a.srcSpan(n, n) }

// hasHistoryExpansion reports whether an unquoted or double-quoted literal
// holds an interactive history expansion: !!, !-N, !N or !?str.
func hasHistoryExpansion(v string) bool {
	for i := 0; i+1 < len(v); i++ {
		if v[i] != '!' || (i > 0 && v[i-1] == '\\') {
			continue
		}
		n := v[i+1]
		switch {
		case n == '!' || n == '?' || isDigit(n):
			return true
		case n == '-' && i+2 < len(v) && isDigit(v[i+2]):
			return true
		}
	}
	return false
}
