package classify

import (
	"cmp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Which literal words of a for/select loop the body is judged with. Each
// judged word is one walk of the body, and a loop inside the body is
// walked once per walk of the body around it, so the walks multiply: the
// bounds below apply to that product (analyzer.loopMult), not to each loop
// alone. A word that may name something worth protecting (a risky word,
// see loopWordRisk) is judged before the others, so decoys written before
// it cannot push it past the bound; such words are rare in everyday loops,
// so they get a larger share.
const (
	// maxLoopValues bounds the judged words, multiplied across nested
	// loops: for a in 1…16; do for b in 1…16 … judges a's words and walks
	// b's body with a run-time value.
	maxLoopValues = 16
	// maxLoopRisky bounds the judged risky words, multiplied likewise.
	maxLoopRisky = 64
)

// Risk levels of a loop word.
const (
	riskNone   = iota
	riskHome   // in the home
	riskSystem // a critical or system directory or file, the home itself
	riskStore  // a credential, a file a shell runs, a protected path
)

// loopWord is one literal word of a loop, with its risk.
type loopWord struct {
	v    varVal
	f    field
	rel  bool // a relative word (loopItem), resolved where it is used
	risk int  // set by pickLoopValues when some word must be left out
}

// loopWordRisk is a cheap check of what a loop word may name, resolved
// against the working directory where the loop starts: a credential, an rc
// file or a protected path; a critical or system path; something in the
// home.
func (a *analyzer) loopWordRisk(f field) int {
	key := a.cwd + "\x00" + f.val
	if r, ok := a.loopRisks[key]; ok {
		return r
	}
	r := a.wordRisk(f)
	if a.loopRisks == nil {
		a.loopRisks = map[string]int{}
	}
	a.loopRisks[key] = r // a loop inside another is met once per walk of it
	return r
}

func (a *analyzer) wordRisk(f field) int {
	dir := a.cwd
	if dir == cwdMaybeHome {
		dir = "~"
	}
	p := f
	if !strings.HasPrefix(p.val, "/") && !strings.HasPrefix(p.val, "~") && dir != "" {
		p.val = dir + "/" + p.val
	}
	if g, ok := inHome(p, a.c.home); ok {
		p = g
	}
	c := cleanTarget(p.val)
	cf := field{val: c}
	switch {
	case c == "":
		return riskNone
	case isSecretPathIn(secretBase(a.cwd), f.val) || isSecretPath(c) || runFile(c) ||
		protectedMatch(a.c.protected, c, false, a.c.foldCase):
		return riskStore
	case criticalTarget(cf) || systemWriteTarget(cf) || c == "/etc":
		return riskSystem
	case strings.HasPrefix(c, "~"):
		return riskHome
	}
	return riskNone
}

// pickLoopValues returns the values a loop body is judged with, at most
// maxLoopValues (and maxLoopRisky risky ones) divided by the judged walks
// of the loops around it: the riskiest words first, then the other
// non-relative ones, then the relative ones, each in the order written.
// cut reports that some word was left out (the body is then also walked
// with a run-time value, which counts as one of the walks). The risk is
// only checked when some word must be left out.
// walks is what one walk of the body costs, in walks of the innermost
// body (see bodyWalks).
func (a *analyzer) pickLoopValues(words []loopWord, walks int) (vals []varVal, cut bool) {
	mult := max(a.loopMult, 1) * walks
	all, risky := maxLoopValues/mult, maxLoopRisky/mult
	if len(words) > all {
		if a.dry > 0 {
			return nil, true // a walk that judges nothing: the run-time value only
		}
		all-- // the run-time value's walk
		for i := range words {
			words[i].risk = a.loopWordRisk(words[i].f)
		}
	}
	slices.SortStableFunc(words, func(x, y loopWord) int {
		if c := cmp.Compare(y.risk, x.risk); c != 0 {
			return c
		}
		return cmp.Compare(b2i(x.rel), b2i(y.rel))
	})
	for _, w := range words {
		if len(vals) < all || w.risk > riskNone && len(vals) < risky {
			vals = append(vals, w.v)
		} else {
			cut = true
		}
	}
	return vals, cut
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bodyWalks returns what one walk of a loop body costs, in walks of its
// innermost loop body: each loop inside is walked at least twice (a walk
// that learns what a round changes, then one that judges), so 2 to the
// depth of the loops nested in it (at most 64). Function bodies are not
// counted: they are walked where they are called.
func (a *analyzer) bodyWalks(c *syntax.ForClause) int {
	if w, ok := a.loopWalks[c]; ok {
		return w
	}
	w := 1 << min(loopDepth(c.Do), 6)
	if a.loopWalks == nil {
		a.loopWalks = map[*syntax.ForClause]int{}
	}
	a.loopWalks[c] = w
	return w
}

// loopDepth returns how deeply loops nest in stmts.
func loopDepth(stmts []*syntax.Stmt) int {
	d := 0
	for _, s := range stmts {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.FuncDecl:
				return false
			case *syntax.ForClause:
				d = max(d, 1+loopDepth(n.Do))
				return false
			case *syntax.WhileClause:
				d = max(d, 1+loopDepth(n.Do))
				return false
			}
			return true
		})
	}
	return d
}
