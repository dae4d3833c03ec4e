package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The transforms ${X@E} and ${X@P} expand what a value holds: @E its
// backslash escapes as $'…' does, @P prompt escapes (\u, \w …) and then
// $-expansions, `…` and $(…) (the code those run is judged by
// promptExpand). A value with none of them is itself: X=~/.ssh/id_rsa;
// cat "${X@P}" reads the key.

// isEscapeOp reports whether e is ${X@E} or ${X@P}.
func isEscapeOp(e *syntax.Expansion) bool {
	if e.Op != syntax.OtherParamOps || e.Word == nil {
		return false
	}
	l := e.Word.Lit()
	return l == "E" || l == "P"
}

// escapeValue returns s with e (${X@E} or ${X@P}) applied and whether the
// result starts with the home directory. When ok is false the result is
// only known at run time and out is a value it may have.
func (a *analyzer) escapeValue(s string, e *syntax.Expansion) (out string, home, ok bool) {
	if e.Word.Lit() == "E" {
		return ansiC(s), false, true
	}
	switch {
	case !strings.ContainsAny(s, "\\$`"):
		return s, false, true
	case strings.ContainsAny(s, "\\`") || strings.Contains(s, "$("):
		return s, false, false // a prompt escape or a substitution: run time
	}
	return a.promptParams(s)
}

// promptParams expands the parameter expansions in a prompt value as a
// double-quoted word: X='$HOME/.ssh/id_rsa'; "${X@P}" is ~/.ssh/id_rsa.
func (a *analyzer) promptParams(s string) (string, bool, bool) {
	if !a.charge(1 + len(s)/64) { // see expansionCode
		return s, false, false
	}
	if a.depth >= maxDepth {
		a.limit("nesting deeper than 16 levels")
		return s, false, false
	}
	w, err := syntax.NewParser().Document(strings.NewReader(s))
	if err != nil {
		return s, false, false
	}
	saved := a.src
	a.src = s
	a.depth++
	f := joinField(a.expandWord(w))
	a.depth--
	a.src = saved
	if f.dyn {
		return f.possible(), false, false
	}
	return f.val, f.home, true
}
