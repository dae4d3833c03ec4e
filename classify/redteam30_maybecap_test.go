package classify

import (
	"strings"
	"testing"
)

// TestRedteam30MaybeCap: boundMaybe keeps at most maxMaybe (64) texts a
// value may hold and, past that, keeps those holding $ or ` first. A
// text without $ can still run code in arithmetic through the names it
// holds: with b='x[$(rm -rf /)]', a for loop over 70 harmless words
// holding $ ('0$' … '69$') and then b leaves v = b, and $((v)) evaluates
// b, then x[$(rm -rf /)]. The cap drops "b" (sorted after the $-texts),
// so the classifier follows none of b and judges the line "allow"
// (common-safe-commands); the same with getopts a: o -a b '0$' … (OPTARG
// is b). Every value is a literal on the line. Severity: high (an allowed
// line runs rm -rf /; the sandbox still applies). Fix: past the cap the
// value must escalate arithmetic on it (fail closed), not drop texts; a
// name is as dangerous as a $.
// Fixed: boundMaybe drops nothing: past maxMaybe the rest are joined into
// one text arithmetic scans whole (too long: maybeMany, which escalates),
// and a for loop's variable keeps every literal word as maybe texts after
// the loop (and for the words the body is not walked with).
func TestRedteam30MaybeCap(t *testing.T) {
	var ws []string
	for i := 0; i < 70; i++ {
		ws = append(ws, "'"+itoa(i)+"$'")
	}
	pad := strings.Join(ws, " ")
	rt30eJudge(t, `for v in `+pad+` b; do :; done; b=3; echo $((v+1))`, []string{
		`b='x[$(CMD)]'; for v in ` + pad + ` b; do :; done; echo $((v))`,
		`b='x[$(CMD)]'; getopts a: o -a b ` + pad + `; echo $((OPTARG))`,
	})
}
