package classify

import "testing"

// TestRedteam32MaybePart: maybevals.go keeps the whole literal as the
// possible text of BASH_REMATCH after [[ 'lit' =~ re ]] and of OPTARG
// after getopts on literal words, on the premise that "a part holds no
// substitution or name the whole does not". That is false for names: a
// part of the name ab is the name b. With b='x[$(CMD)]', bash's
// BASH_REMATCH[1] after [[ ab =~ a(b) ]] is "b", and OPTARG after
// getopts a: o -ab is "b" (the rest of the bundled word -ab); $((…)) of
// either evaluates b, whose value's subscript runs CMD. The classifier
// follows only "ab" (an unset name) and judges each line "allow"
// (common-safe-commands), while b='x[$(rm -rf /)]'; echo $((b)) is
// forbidden. Every text is a literal on the line. Severity: high (an
// allowed line runs rm -rf /; the sandbox still applies). Fix: follow
// every name a part of the text may be (each substring that is a name,
// or every variable the line set whose name occurs inside the text), or
// take OPTARG as the word minus its option letters (-ab: b) and
// BASH_REMATCH as any substring — or fail closed when a name inside the
// text has a suffix/substring the line assigned.
// Fixed: getoptsArg and reMatch (maybevals.go) keep, with each text,
// every name a substring of it is (partTexts, maybeparts.go: ab gives a,
// ab, b; ab[1] gives b[1] too), so arithmetic follows b; a text whose part
// may hold a substitution the whole hides (quotes, $(( ) escalates.
func TestRedteam32MaybePart(t *testing.T) {
	rt30eJudge(t, `b=1; [[ ab =~ a(b) ]]; echo $((BASH_REMATCH[1]))`, []string{
		`b='x[$(CMD)]'; [[ ab =~ a(b) ]]; echo $((BASH_REMATCH[1]))`,
		`b='x[$(CMD)]'; [[ ab =~ b ]]; echo $((BASH_REMATCH))`,
		`b='x[$(CMD)]'; getopts a: o -ab; echo $((OPTARG))`,
	})
}
