package classify

import "testing"

// TestRedteam32DeclUnderscore: after a declaration builtin with a
// NAME=VALUE word (declare, typeset, export, readonly), bash sets $_ to
// that last word as written after expansion: declare a='x[$(CMD)]' leaves
// $_ = a=x[$(CMD)]. $(( _ )) (or $(( $_ ))) then evaluates the assignment
// a=x[$(CMD)], whose subscript runs CMD. The classifier's $_ model
// (maybevals.go) follows $_ after a plain command (: 'x[$(rm -rf /)]';
// echo $((_)) is forbidden) and after declare 'x[…]' without a value,
// but not after a declaration's NAME=VALUE word: each line below is
// "allow" (common-safe-commands) though bash runs rm -rf /. The text is a
// literal on the line (also declare -x, declare b=1 a=…, declare -a
// a=(…), a=$'…', declare --, readonly -a, local outside a function
// (it fails, $_ is still set), and x=$_ then $((x))), so this is not the documented run-time limit.
// Severity: high (an allowed line runs rm -rf /; the sandbox still
// applies). Fix: a declaration clause must set $_'s possible text to its
// last word NAME=VALUE (value after expansion), as a simple command does.
// Fixed: decl (vars.go) records the last word's expanded value and
// declLastWord (maybevals.go) sets $_'s possible texts to NAME=VALUE (the
// name, and the word's source, for a=(…); the builtin's name alone), so
// arithmetic on $_ follows a=x[$(…)].
func TestRedteam32DeclUnderscore(t *testing.T) {
	rt30eJudge(t, `declare a=1; echo $(( _ ))`, []string{
		`declare a='x[$(CMD)]'; echo $(( _ ))`,
		`typeset a='x[$(CMD)]'; echo $(( _ ))`,
		`export a='x[$(CMD)]'; echo $(( _ ))`,
		`readonly a='x[$(CMD)]'; echo $(( _ ))`,
		`declare a='x[$(CMD)]'; echo $(( $_ ))`,
		`declare -x a='x[$(CMD)]'; echo $(( _ ))`,
		`declare b=1 a='x[$(CMD)]'; echo $(( _ ))`,
		`declare -a a=('x[$(CMD)]'); echo $(( _ ))`,
		`declare a=$'x[$(CMD)]'; echo $(( _ ))`,
		`declare a='x[$(CMD)]'; x=$_; echo $(( x ))`,
		`declare -- a='x[$(CMD)]'; echo $(( _ ))`,
		`readonly -a a=('x[$(CMD)]'); echo $(( _ ))`,
		`local a='x[$(CMD)]' 2>/dev/null; echo $(( _ ))`,
	})
}
