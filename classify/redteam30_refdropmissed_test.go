package classify

import "testing"

// TestRedteam30RefDropMissed: dropsNameref only sees an unquoted +n word
// of a declare/typeset/local clause, and only for names the parser gives
// as plain names. Bash drops the nameref just the same when the flag or
// the name is quoted ("+n", '+n', +""n, "r", ""r), when the flag comes
// from a variable the line set (o=+n; declare $o r), and through builtin
// declare / command declare. The classifier keeps r a nameref to c, so it
// takes r=ls as c=ls and judges $c as ls: each line is "allow"
// (common-safe-commands) while bash leaves c='rm -rf /' and runs it.
// Every value is a literal on the line. Severity: high (an allowed line
// runs rm -rf /; the sandbox still applies). Fix: judge declare's words
// after quote removal and expansion (as with other builtins' fields),
// handle builtin/command declare like declare, and when a drop may or
// may not happen, join both states.
// Fixed: refdrop.go reads declare's words after quote removal
// (declWords, wordLiteral), a word only known at run time may drop any
// link (dropAny: both states joined), and builtinAssigns sends builtin /
// command declare to wrappedDecl.
func TestRedteam30RefDropMissed(t *testing.T) {
	rt30eJudge(t, `c=pwd; declare -n r=c; declare +n r; r=ls; $c`, []string{
		`c='CMD'; declare -n r=c; declare "+n" r; r=ls; $c`,
		`c='CMD'; declare -n r=c; declare '+n' r; r=ls; $c`,
		`c='CMD'; declare -n r=c; declare +""n r; r=ls; $c`,
		`c='CMD'; declare -n r=c; declare +n "r"; r=ls; $c`,
		`c='CMD'; declare -n r=c; declare +n ""r; r=ls; $c`,
		`c='CMD'; declare -n r=c; o=+n; declare $o r; r=ls; $c`,
		`c='CMD'; declare -n r=c; builtin declare +n r; r=ls; $c`,
		`c='CMD'; declare -n r=c; command declare +n r; r=ls; $c`,
	})
}
