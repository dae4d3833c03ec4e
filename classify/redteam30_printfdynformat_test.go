package classify

import "testing"

// TestRedteam30PrintfDynFormat: printfValue takes a FORMAT word holding
// any run-time part as wholly empty (lit[0] = ""), so the possible value
// of printf -v i "%${RT30W}s" 'x[$(rm -rf /)]' is "" and i becomes a bare
// run-time value that arithmetic does not follow. Bash, with RT30W unset
// (or empty), uses FORMAT %s and stores x[$(rm -rf /)]; $((i)) runs it.
// The same happens with "$RT30W%s", "${RT30F:-%s}" (a literal default), a
// FORMAT only a maybe text gives (F=%s in a branch, OPTARG after getopts
// a: o -a %s, $_ after : %s), and with $(printf "$F" …) folded in
// arithmetic or assigned to i. Each line is "allow"
// (common-safe-commands), while printf -v i '%s' 'x[$(rm -rf /)]';
// echo $((i)) is forbidden. The dangerous text is a literal on the line,
// and the README says run-time parts are taken as empty when possible
// values are computed, so this is not the documented run-time limit.
// Severity: high (an allowed line runs rm -rf /; the sandbox still
// applies). Fix: a FORMAT with run-time parts must give a possible value
// that holds every literal ARG (and the FORMAT's literal parts / maybe
// texts / defaults), as the >64-ARG path already does, not "".
// Fixed: printfPossible keeps every literal ARG with a run-time FORMAT
// (printf -v, and a printf stream's possible text); a substitution's
// possible output is followed in $(( )) (arithSubsts) and kept as maybe
// texts of a variable it is assigned to (field.maybe).
func TestRedteam30PrintfDynFormat(t *testing.T) {
	rt30eJudge(t, `printf -v i "%${RT30W}s" 3; echo $((i+1))`, []string{
		`printf -v i "%${RT30W}s" 'x[$(CMD)]'; echo $((i))`,
		`printf -v i "$RT30W%s" 'x[$(CMD)]'; echo $((i))`,
		`printf -v i "${RT30F:-%s}" 'x[$(CMD)]'; echo $((i))`,
		`if [ -d / ]; then F=%s; fi; printf -v i "$F" 'x[$(CMD)]'; echo $((i))`,
		`getopts a: o -a %s; printf -v i "$OPTARG" 'x[$(CMD)]'; echo $((i))`,
		`: %s; printf -v i "$_" 'x[$(CMD)]'; echo $((i))`,
		`if [ -d / ]; then F=%s; fi; echo $(( $(printf "$F" 'x[$(CMD)]') ))`,
		`i=$(printf "%${RT30W}s" 'x[$(CMD)]'); echo $((i))`,
	})
}
