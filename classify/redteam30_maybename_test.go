package classify

import "testing"

// TestRedteam30MaybeNameUse: maybevals.go lets arithmetic follow the
// texts a branch join, getopts' OPTARG, BASH_REMATCH and $_ may hold
// (varVal.maybe), but word expansion still takes those variables as
// bare run-time values. Bash evaluates a subscript in a NAME a builtin
// or expansion is given — [[ -v NAME ]], ${!NAME}, printf -v NAME, read
// NAME — so a literal 'a[$(rm -rf /)]' that reached v, OPTARG,
// BASH_REMATCH or $_ runs its substitution there, and the same goes for
// arithmetic reached through an indirection ($((${!p})) with p=OPTARG).
// Each line is "allow" (common-safe-commands); with the value assigned
// plainly (v='a[$(rm -rf /)]'; [[ -v $v ]]) the classifier says
// forbidden. Every value is a literal on the line, not a file's or
// program's output, so the README's run-time limit (which says such
// texts are still followed) does not cover it. Severity: high (an
// allowed line runs rm -rf /; the sandbox still applies). Fix: where a
// run-time word is used as a variable name (test -v, ${!x}, printf -v,
// read, declare/unset names, @P/indirect arithmetic), judge each maybe
// text as that name too, as the arithmetic paths do.
// Fixed: fieldTexts (maybevals.go) gives every text a run-time word may
// hold ($v, ${!p}, a substitution's possible output); nameText, nameValue
// (${!v}), arith ($(($v)), $((${!p}))), and the name words of read,
// printf -v, unset and declare follow each of them.
func TestRedteam30MaybeNameUse(t *testing.T) {
	rt30eJudge(t, `if [ -d / ]; then v=HOME; fi; [[ -v $v ]]; echo ${!v}`, []string{
		`if [ -d / ]; then v='a[$(CMD)]'; fi; [[ -v $v ]]`,
		`if [ -d / ]; then v='a[$(CMD)]'; fi; echo ${!v}`,
		`if [ -d / ]; then v='a[$(CMD)]'; fi; printf -v "$v" x`,
		`if [ -d / ]; then v='a[$(CMD)]'; fi; read "$v" </dev/null`,
		`getopts a: o -a 'a[$(CMD)]'; [[ -v $OPTARG ]]`,
		`getopts a: o -a 'a[$(CMD)]'; echo ${!OPTARG}`,
		`getopts a: o -a 'a[$(CMD)]'; printf -v "$OPTARG" x`,
		`getopts a: o -a 'x[$(CMD)]'; p=OPTARG; echo $((${!p}))`,
		`[[ 'a[$(CMD)]' =~ .* ]]; printf -v "$BASH_REMATCH" x`,
		`: 'a[$(CMD)]'; [[ -v $_ ]]`,
		`: 'a[$(CMD)]'; echo ${!_}`,
	})
}
