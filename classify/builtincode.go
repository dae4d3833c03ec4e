package classify

import (
	"iter"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Builtins that run code given as data: compgen -C runs a command and
// compgen -W expands a word list (its $(…) included) at once, in a
// non-interactive shell too; a coprocess runs what later commands write to
// its descriptor ${NAME[1]}.

// compgenValueOpts are compgen's options that take a value.
const compgenValueOpts = "oAGWFCXPS"

// runCompgen judges the code compgen runs: -C's value is a command (run
// in a subshell, with the command name, the word and the previous word
// appended), -W's value is expanded as a word once more (a run-time
// value is judged as eval of unknown text). -F names a function, whose
// body is walked where it is defined.
func (a *analyzer) runCompgen(u *unit) (stream, bool) {
	for opt, f := range optionValues(u.args, compgenValueOpts) {
		switch opt {
		case 'C':
			f.val += ` "$1" "$2" "$3"`
			a.shellString(u, f)
		case 'W':
			a.wordListCode(f)
		}
	}
	return a.produce(u), true
}

// optionValues yields each option of a builtin's getopt-style arguments
// that takes a value (one of valueOpts), with its value: the rest of its
// cluster or the next argument (-Cval, -C val, -aC val). It stops at "--"
// or the first operand.
func optionValues(args []field, valueOpts string) iter.Seq2[byte, field] {
	return func(yield func(byte, field) bool) {
		for i := 0; i < len(args); i++ {
			v := args[i].val
			if v == "--" || len(v) < 2 || v[0] != '-' {
				return
			}
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(valueOpts, v[j]) < 0 {
					continue
				}
				f := args[i]
				f.val = v[j+1:]
				if f.val == "" && i+1 < len(args) {
					i++
					f = args[i]
				}
				if !yield(v[j], f) {
					return
				}
				break
			}
		}
	}
}

// wordListCode judges the expansion of a word list the shell expands once
// more (compgen -W).
func (a *analyzer) wordListCode(f field) {
	if f.dyn {
		a.runtimeCode(f.val)
		return
	}
	a.expansionCode(f.val)
}

// coproc walks a coprocess: its command reads what later commands write
// to ${NAME[1]}, so it is walked here fed text only known at run time
// (a shell reading it is eval-exec), and again by feedCoproc with the
// output of each command whose standard output is dup'ed to ${NAME[1]}
// on the line.
func (a *analyzer) coproc(c *syntax.CoprocClause) stream {
	name := "COPROC"
	if c.Name != nil {
		name = c.Name.Lit()
	}
	if a.coprocs == nil {
		a.coprocs = map[string]*syntax.Stmt{}
	}
	a.coprocs[name] = c.Stmt
	return a.isolated(func() stream { return a.stmt(c.Stmt, &stream{traits: trUnknown}) })
}

// feedCoproc walks the coprocess a redirection of s writes to (>&"${NAME[1]}")
// fed what s writes there: its output, or text only known at run time for
// another descriptor.
func (a *analyzer) feedCoproc(s *syntax.Stmt, out stream) {
	for _, r := range s.Redirs {
		name := coprocWord(r)
		c, ok := a.coprocs[name]
		if !ok || a.coprocBusy[name] {
			continue
		}
		in := out
		if r.N != nil && r.N.Value != "1" {
			in = stream{traits: trUnknown}
		}
		if a.coprocBusy == nil {
			a.coprocBusy = map[string]bool{}
		}
		a.coprocBusy[name] = true
		a.isolated(func() stream { return a.stmt(c, &in) })
		delete(a.coprocBusy, name)
	}
}

// coprocWord returns NAME when r is >&${NAME[1]} (quoted or not), else "".
func coprocWord(r *syntax.Redirect) string {
	if r.Op != syntax.DplOut || r.Word == nil || len(r.Word.Parts) != 1 {
		return ""
	}
	part := r.Word.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	p, ok := part.(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Index == nil || p.Excl || p.Length || p.Exp != nil || p.Repl != nil || p.Slice != nil {
		return ""
	}
	if w, ok := p.Index.(*syntax.Word); !ok || w.Lit() != "1" {
		return ""
	}
	return p.Param.Value
}
