package classify

import "testing"

// TestRedteam33MaybeCopy: the possible texts a run-time value keeps for
// arithmetic (varVal.maybe: BASH_REMATCH after [[ 'lit' =~ re ]], OPTARG
// after getopts, a value one branch gave) follow a copy into another
// variable only when the copy is a plain $v / ${v} (fieldTexts →
// paramRefs, maybevals.go). Any other parameter form drops them: a
// subscript (${BASH_REMATCH[1]}, ${BASH_REMATCH[-1]}), an operator
// (${OPTARG:0}, ${OPTARG#x}, ${v:0}, ${v%x}), an array copy
// (v=("${BASH_REMATCH[@]}")), printf -v, or a for loop over the value
// (for v in "${BASH_REMATCH[@]}", for v in $OPTARG); an operator in
// place inside $((…)) too (v=x$OPTARG; $((${v#x}))). In bash each copy still holds
// "b", so $((v)) evaluates b, whose value z[$(CMD)] runs CMD (each
// checked by bashRunsPayload); the classifier judges every line "allow"
// (common-safe-commands), while the same line with $((BASH_REMATCH[1]))
// or v=$OPTARG is forbidden. Every text is a literal on the line.
// Severity: high (an allowed line runs rm -rf /; the sandbox still
// applies). Fix: a word whose parameter parts name a variable with maybe
// texts must carry those texts (and their parts, for the operators that
// cut: :offset, #, %, /) into the value it assigns — for every parameter
// form, array copies and printf -v / read targets alike — or mark the
// result maybeMany so arithmetic escalates.
// Fixed: fieldTexts parses every ${…} left in a field (braceRefs) and
// carries its variable's texts through the operator (paramTexts/opTexts,
// maybeparam.go: parts for cuts, cases, literal replacements, maybeMany
// otherwise); array copies, printf -v (printfMaybe) and for-loop words
// keep the texts of their run-time parts.
func TestRedteam33MaybeCopy(t *testing.T) {
	rt30eJudge(t, `b=1; [[ ab =~ a(b) ]]; v=${BASH_REMATCH[1]}; echo $((v))`, []string{
		`b='z[$(CMD)]'; [[ ab =~ a(b) ]]; v=${BASH_REMATCH[1]}; echo $((v))`,
		`b='z[$(CMD)]'; [[ ab =~ a(b) ]]; v=${BASH_REMATCH[-1]}; echo $((v))`,
		`b='z[$(CMD)]'; [[ ab =~ a(b) ]]; v=("${BASH_REMATCH[@]}"); echo $((v[1]))`,
		`b='z[$(CMD)]'; [[ xab =~ a(b) ]]; printf -v v %s "${BASH_REMATCH[1]}"; echo $((v))`,
		`b='z[$(CMD)]'; getopts a: o -ab; v=${OPTARG:0}; echo $((v))`,
		`b='z[$(CMD)]'; getopts a: o -ab; v=${OPTARG#x}; echo $((v))`,
		`b='z[$(CMD)]'; if true; then v=b; fi; w=${v:0}; echo $((w))`,
		`b='z[$(CMD)]'; if true; then v=b; fi; w=${v%x}; echo $((w))`,
		`b='z[$(CMD)]'; [[ ab =~ a(b) ]]; for v in "${BASH_REMATCH[@]}"; do echo $((v)); done`,
		`b='z[$(CMD)]'; getopts a: o -ab; for v in $OPTARG; do echo $((v)); done`,
		`b='z[$(CMD)]'; if true; then v=b; fi; for w in $v; do echo $((w)); done`,
		`b='z[$(CMD)]'; getopts a: o -ab; v=x$OPTARG; echo $((${v#x}))`,
	})
}
