package classify

import "testing"

// TestRedteam33MaybeIndirect: ${!v} inside arithmetic, where v holds one
// of the possible texts the line wrote (OPTARG after getopts a: o -ab is
// "b", BASH_REMATCH[1] after [[ ab =~ a(b) ]] is "b", or v=b on one
// branch), expands to the value of b, here z[$(CMD)], which $((…))
// evaluates and so runs CMD (bashRunsPayload checks it). fieldTexts
// (maybevals.go) follows ${!name} only when name's value is known
// exactly (v.known), so a maybe-valued name is skipped and each line is
// judged "allow" (common-safe-commands), while v=b; echo $((${!v})) with
// a known v is forbidden. Every text is a literal on the line. Severity:
// high (an allowed line runs rm -rf /; the sandbox still applies). Fix:
// for ${!name} follow the value of every variable each of name's maybe
// texts (and their parts, partTexts) may name, or escalate when name has
// maybe texts and is not known.
// Fixed: paramTexts follows ${!v} (and ${!a[1]}) to the texts of every
// variable v's texts may name (namedTexts, maybeparam.go).
func TestRedteam33MaybeIndirect(t *testing.T) {
	rt30eJudge(t, `b=1; getopts a: o -ab; echo $((${!OPTARG}))`, []string{
		`b='z[$(CMD)]'; getopts a: o -ab; echo $((${!OPTARG}))`,
		`b='z[$(CMD)]'; [[ ab =~ a(b) ]]; echo $((${!BASH_REMATCH[1]}))`,
		`b='z[$(CMD)]'; if true; then v=b; fi; echo $((${!v}))`,
	})
}
