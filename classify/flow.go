package classify

import "mvdan.cc/sh/v3/syntax"

// Branches and loops: each path starts from the state where it starts, and
// afterwards what may differ between the paths is only known at run time
// (see scope.go).

// Jumps that may have run in the body being walked: what follows them in
// their lists may not run (see stmtList).
const (
	jumpLoop uint8 = 1 << iota // break, continue: to the end of the loop body
	jumpFunc                   // return: to the end of the function body
)

// jump records a return, break or continue run in the shell itself.
func (a *analyzer) jump(u *unit) {
	switch name, _, ok := builtinCall(u); {
	case !ok:
	case name == "return":
		a.jumped |= jumpFunc
	case name == "break" || name == "continue":
		a.jumped |= jumpLoop
	}
}

// ifClause walks if/elif/else: each condition runs after the ones before
// failed, each branch after its condition, and with no else none may run.
func (a *analyzer) ifClause(c *syntax.IfClause, in *stream) stream {
	if !c.ThenPos.IsValid() { // else
		return a.stmtList(c.Then, in)
	}
	a.stmtList(c.Cond, in)
	other := a.snapshot()
	a.unsure++
	out := a.stmtList(c.Then, in)
	then := a.state()
	a.restore(other)
	if c.Else != nil {
		out.merge(a.ifClause(c.Else, in))
	}
	a.unsure--
	a.join(then)
	return out
}

// caseClause walks case: the patterns are expanded in turn, each arm starts
// where its patterns matched (or where the arm before it ended, after ;&
// or ;;&), and unless a pattern is a bare * none may run.
func (a *analyzer) caseClause(c *syntax.CaseClause, in *stream) stream {
	a.expandWord(c.Word)
	var out stream
	var ends []shellState
	test := a.snapshot() // where the next patterns are tried
	matchAll := false
	a.unsure++
	defer func() { a.unsure-- }()
	for i, it := range c.Items {
		if !a.charge(1) {
			break
		}
		a.restore(test)
		for _, p := range it.Patterns {
			a.expandWord(p)
			matchAll = matchAll || p.Lit() == "*"
		}
		test = a.snapshot()
		if i > 0 && c.Items[i-1].Op != syntax.Break {
			a.join(ends[i-1]) // fell through from the arm before
		}
		out.merge(a.stmtList(it.Stmts, in))
		ends = append(ends, a.state())
	}
	if !matchAll || len(ends) == 0 {
		ends = append(ends, test) // no pattern matched
	}
	a.joinAll(ends)
	return out
}

// forClause walks for and select loops.
func (a *analyzer) forClause(c *syntax.ForClause, in *stream) stream {
	next := func() {}
	wi, words := c.Loop.(*syntax.WordIter)
	if words {
		item := len(wi.Items) > 0
		for _, w := range wi.Items {
			for _, f := range a.expandWord(w) {
				item = item && loopItem(f)
			}
		}
		next = func() {
			a.setVar(wi.Name.Value, varVal{item: item})
			if c.Select {
				a.setVar("REPLY", varVal{}) // the line select read
			}
		}
	} else {
		a.walkNode(c.Loop)
	}
	if cl, ok := c.Loop.(*syntax.CStyleLoop); ok && cl.Cond == nil && spawnsInBackground(c.Do) {
		a.emit(&unit{kind: kLoop, selfSpawn: true, info: "infinite loop starting background processes"})
	}
	out := a.loop(next, c.Do, in)
	if words {
		// With nullglob the loop may not run: afterwards the value is unknown.
		a.setVar(wi.Name.Value, varVal{})
		if c.Select {
			a.setVar("REPLY", varVal{})
		}
	}
	return out
}

// loop walks a loop that runs next (the condition, or the loop variable
// taking its next value) and then the body any number of times, none
// included; it may stop after next. The body is judged once, with what a
// round may change already taken as only known at run time: a first walk
// that judges nothing learns what that is.
func (a *analyzer) loop(next func(), body []*syntax.Stmt, in *stream) stream {
	round := func() stream {
		next()
		stop, jumped := a.snapshot(), a.jumped
		a.jumped &^= jumpLoop
		out := a.stmtList(body, in)
		a.jumped = jumped | a.jumped&jumpFunc // break and continue end here
		a.join(stop)
		return out
	}
	if a.dry == 0 {
		a.dry++
		a.maybe(round)
		a.dry--
	}
	return a.maybe(round)
}
