package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Shapes of fork bombs: functions that spawn themselves, infinite loops that
// start background processes.

// selfSpawning reports whether a function body calls the function in a
// pipeline, in the background, or more than once: the shape of a fork bomb.
func selfSpawning(body *syntax.Stmt, name string) bool {
	calls, concurrent := 0, false
	syntax.Walk(body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background {
				if callsName(n, name) {
					concurrent = true
				}
			}
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (callsName(n.X, name) || callsName(n.Y, name)) {
				concurrent = true
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 && unquote(n.Args[0]) == name {
				calls++
			}
		}
		return true
	})
	return concurrent || calls >= 2
}

func callsName(n syntax.Node, name string) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 && unquote(ce.Args[0]) == name {
			found = true
		}
		return !found
	})
	return found
}

// unquote returns the value of a word made only of literal and quoted parts.
func unquote(w *syntax.Word) string {
	var sb strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			sb.WriteString(strings.ReplaceAll(p.Value, `\`, ""))
		case *syntax.SglQuoted:
			sb.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					sb.WriteString(l.Value)
				}
			}
		}
	}
	return sb.String()
}

// infiniteLoop reports whether a while/until loop never ends by its condition.
func infiniteLoop(c *syntax.WhileClause) bool {
	if len(c.Cond) != 1 {
		return false
	}
	ce, ok := c.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) != 1 {
		return false
	}
	switch unquote(ce.Args[0]) {
	case "true", ":":
		return !c.Until
	case "false":
		return c.Until
	}
	return false
}

func spawnsInBackground(stmts []*syntax.Stmt) bool {
	for _, s := range stmts {
		bg := false
		syntax.Walk(s, func(n syntax.Node) bool {
			if st, ok := n.(*syntax.Stmt); ok && st.Background {
				bg = true
			}
			return !bg
		})
		if bg {
			return true
		}
	}
	return false
}
