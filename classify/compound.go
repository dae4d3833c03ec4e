package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// compound walks every command that is not a simple command or a list.
func (a *analyzer) compound(cmd syntax.Command, in *stream) stream {
	switch c := cmd.(type) {
	case *syntax.Subshell:
		return a.isolated(func() stream { return a.stmtList(c.Stmts, in) })
	case *syntax.Block:
		return a.stmtList(c.Stmts, in)
	case *syntax.IfClause:
		return a.ifClause(c, in)
	case *syntax.WhileClause:
		if infiniteLoop(c) && spawnsInBackground(c.Do) {
			a.emit(&unit{kind: kLoop, selfSpawn: true, info: "infinite loop starting background processes"})
		}
		return a.loop(func() { a.stmtList(c.Cond, in) }, nil, c.Do, in)
	case *syntax.ForClause:
		return a.forClause(c, in)
	case *syntax.CaseClause:
		return a.caseClause(c, in)
	case *syntax.FuncDecl:
		a.funcDecl(c)
		return stream{}
	case *syntax.DeclClause:
		a.decl(c)
		return stream{}
	case *syntax.TimeClause:
		return a.stmt(c.Stmt, in)
	case *syntax.CoprocClause:
		return a.coproc(c)
	case *syntax.TestDecl:
		return a.stmt(c.Body, in)
	case *syntax.TestClause:
		a.walkNode(cmd)
		if hasReMatch(c.X) {
			a.reMatch(c.X) // [[ s =~ re ]] sets BASH_REMATCH
		}
		return stream{}
	default: // ArithmCmd, LetClause
		a.walkNode(cmd)
		return stream{}
	}
}

// loopItem reports whether a for-loop word is a value the loop variable
// can take without being empty or naming more than the working directory
// holds: a relative literal or glob (a glob with no match stays the
// pattern), with no .. component and no dot glob (.* matches . and ..).
// Words from $(…), $VAR, ~ or an absolute path are not.
func loopItem(f field) bool {
	if f.dyn || f.home || f.val == "" || strings.HasPrefix(f.val, "/") || strings.HasPrefix(f.val, "-") {
		return false
	}
	if c := cleanTarget(f.val); c == "" || c == "." || c == ".." {
		return false
	}
	for _, comp := range strings.Split(f.val, "/") {
		if comp == ".." || strings.HasPrefix(comp, ".") && strings.ContainsAny(comp, "*?[") {
			return false
		}
	}
	return true
}

// walkNode finds the command and process substitutions inside a node that
// the analyzer does not otherwise visit (arithmetic, [[ ]] tests, parameter
// expansion operands) and walks them.
func (a *analyzer) walkNode(n syntax.Node) {
	if n == nil {
		return
	}
	a.walkDepth++
	defer func() {
		if a.walkDepth--; a.walkDepth == 0 {
			a.substDone = nil // none left for a later walk to skip
		}
	}()
	syntax.Walk(n, func(n syntax.Node) bool {
		a.arithNode(n)
		switch n := n.(type) {
		case *syntax.BinaryArithm:
			if arithAssigns(n.Op) {
				a.arithSet(n.X)
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				a.arithSet(n.X)
			}
		case *syntax.CmdSubst:
			if a.substDone[n] {
				delete(a.substDone, n) // arithSubsts walked it
				return false
			}
			a.subst(n.Stmts)
			return false
		case *syntax.ProcSubst:
			a.subst(n.Stmts)
			return false
		case *syntax.Word:
			for _, p := range n.Parts {
				switch p.(type) {
				case *syntax.CmdSubst, *syntax.ProcSubst:
					a.walkNode(p)
				case *syntax.ParamExp, *syntax.DblQuoted, *syntax.ArithmExp:
					a.walkNode(p)
				}
			}
			return false
		}
		return true
	})
}

// arithAssigns reports whether an arithmetic operator assigns to its left
// operand.
func arithAssigns(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn, syntax.AndBoolAssgn,
		syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

// arithSet records that arithmetic ((i++), $((i=1)), let i+=1) set the
// variable x names: its value is now only known at run time.
func (a *analyzer) arithSet(x syntax.ArithmExpr) {
	if w, ok := x.(*syntax.Word); ok {
		if name, _, _ := strings.Cut(w.Lit(), "["); isVarName(name) {
			a.setVar(name, varVal{})
		}
	}
}
