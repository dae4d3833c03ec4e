package classify

import (
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

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

// andOr walks X && Y and X || Y: Y may not run. After &&, Y starts where X
// ends when it succeeds (cd ~ && cd project && grep -r x . greps
// ~/project, although cd project may fail), and X && Y succeeds where Y
// does.
func (a *analyzer) andOr(c *syntax.BinaryCmd, in *stream) stream {
	o := a.stmt(c.X, in)
	ok, and := a.cdOK, c.Op == syntax.AndStmt
	var end dirState
	o.merge(a.maybe(func() stream {
		if ok != nil && and {
			a.cwd, a.oldwd, a.dirs = ok.cwd, ok.oldwd, ok.dirs
		}
		out := a.stmt(c.Y, in)
		if end = (dirState{cwd: a.cwd, oldwd: a.oldwd, dirs: a.dirs}); a.cdOK != nil {
			end = *a.cdOK
		}
		return out
	}))
	a.cdOK = nil
	if and && (end.cwd != a.cwd || end.oldwd != a.oldwd || !slices.Equal(end.dirs, a.dirs)) {
		e := end
		e.dirs = slices.Clone(e.dirs)
		a.cdOK = &e
	}
	return o
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

// forClause walks for and select loops. The body is judged with each
// value the variable may take (see loopValues): for f in ~/.ssh/id_rsa;
// do cat "$f"; done is cat ~/.ssh/id_rsa.
func (a *analyzer) forClause(c *syntax.ForClause, in *stream) stream {
	rep := func() {}
	var nexts []func()
	var all varVal // the loop variable's value standing for every word
	wi, words := c.Loop.(*syntax.WordIter)
	if words {
		set := func(v varVal) func() {
			return func() {
				a.setVar(wi.Name.Value, v)
				if c.Select {
					a.setVar("REPLY", varVal{}) // the line select read
				}
			}
		}
		var vals []varVal
		all, vals = a.loopValues(wi, a.bodyWalks(c))
		rep = set(all)
		for _, v := range vals {
			nexts = append(nexts, set(v))
		}
	} else {
		a.walkNode(c.Loop)
	}
	if cl, ok := c.Loop.(*syntax.CStyleLoop); ok && cl.Cond == nil && spawnsInBackground(c.Do) {
		a.emit(&unit{kind: kLoop, selfSpawn: true, info: "infinite loop starting background processes"})
	}
	out := a.loop(rep, nexts, c.Do, in)
	if words {
		// With nullglob the loop may not run: afterwards the value is
		// unknown, but may be a word or what the body gave it.
		a.setVar(wi.Name.Value, varVal{maybe: joinMaybe(a.vars[a.refName(wi.Name.Value)], all)})
		if c.Select {
			a.setVar("REPLY", varVal{})
		}
	}
	return out
}

// loopValues expands the words of a for or select loop and returns a
// run-time value standing for every value its variable may take (never
// empty when every word is a relative one, see loopItem), and the values
// the body is judged with: each literal word, chosen by risk and bounded
// (see pickLoopValues; walks is what one walk of the body costs), and the run-time value for the words with
// run-time parts and those left out (then never taken as a harmless
// relative word when the working directory may matter). A relative word
// is kept as the word itself, so that it is resolved against the working
// directory where it is used (cd ~; for f in .ssh; do rm -rf "$f"; done).
func (a *analyzer) loopValues(wi *syntax.WordIter, walks int) (varVal, []varVal) {
	item, runtime := len(wi.Items) > 0, len(wi.Items) == 0
	var words []loopWord
	var maybe []string
	var listed stream // the listings run-time words may come from (for f in $(find ~))
	seen := map[string]bool{}
	for _, w := range wi.Items {
		for _, f := range a.expandWord(w) {
			isItem := loopItem(f)
			item = item && isItem
			runtime = runtime || f.dyn || f.ifs || f.glob // a glob: its matches
			if f.dyn {
				// What the line may have put there (for v in
				// "${BASH_REMATCH[@]}"), for arithmetic.
				maybe = append(maybe, a.fieldTexts(f)...)
				listed.addTree(f.src)
			}
			if f.dyn && f.hasAlt && !f.ifs {
				// ${X:-w}, ${!prefix@}: the possible value is a word too.
				f = field{val: f.alt, bare: f.alt, home: f.home, quoted: f.quoted}
			}
			if f.dyn || f.ifs || seen[f.val] {
				continue
			}
			seen[f.val] = true
			v := varVal{val: f.val, known: true, home: f.home}
			words = append(words, loopWord{v: v, f: f, rel: isItem})
		}
	}
	lits, cut := a.pickLoopValues(words, walks)
	if cut {
		runtime = true
		item = item && dirRank(a.cwd) == 0
	}
	// Every literal word, for arithmetic: the run-time value stands for
	// those left out, and the variable keeps one after the loop (past
	// maxMaybe, arithmetic on it escalates).
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.v.val
	}
	all := varVal{item: item, maybe: joinMaybe(varVal{maybe: append(texts, maybe...)}), tree: listed.tree}
	if runtime {
		rt := varVal{item: item, maybe: joinMaybe(varVal{maybe: maybe}), tree: listed.tree}
		if cut {
			rt.maybe = all.maybe
		}
		lits = append(lits, rt)
	}
	return all, lits
}

// loop walks a loop that runs next (the condition, or the loop variable
// taking its next value: one of nexts, or rep, which stands for them all)
// and then the body any number of times, none included; it may stop after
// next.
// The body is judged once for each of nexts, with what a round may change
// already taken as only known at run time: a first walk with rep that
// judges nothing learns what that is.
func (a *analyzer) loop(rep func(), nexts []func(), body []*syntax.Stmt, in *stream) stream {
	round := func(next func()) func() stream {
		return func() stream {
			next()
			stop, jumped := a.snapshot(), a.jumped
			a.jumped &^= jumpLoop
			out := a.stmtList(body, in)
			a.jumped = jumped | a.jumped&jumpFunc // break and continue end here
			a.join(stop)
			return out
		}
	}
	if a.dry == 0 {
		a.dry++
		a.maybe(round(rep))
		a.dry--
	}
	if a.dry > 0 || len(nexts) == 0 {
		nexts = []func(){rep} // a walk that judges nothing, or a loop with no word
	}
	mult := a.loopMult
	a.loopMult = max(mult, 1) * len(nexts) // what a loop inside may still spend
	var out stream
	for _, next := range nexts {
		out.merge(a.maybe(round(next)))
	}
	a.loopMult = mult
	return out
}
