package classify

import (
	"strings"
	"testing"
)

// arithChain returns n plain assignments v1=v0; v2=v1; … after v0=first,
// and $((vN)).
func arithChain(first string, n int) string {
	var b strings.Builder
	b.WriteString("v0=" + first + "; ")
	for k := 1; k <= n; k++ {
		b.WriteString("v" + itoa(k) + "=v" + itoa(k-1) + "; ")
	}
	return b.String() + "echo $((v" + itoa(n) + "))"
}

// TestArithDepthAndCycles: arithmetic follows names naming names as deep
// as maxArithDepth and escalates a line deeper than that; a cycle (an
// error in bash) ends quietly; values that fan out are charged as steps.
func TestArithDepthAndCycles(t *testing.T) {
	redteam26Expect(t, []struct {
		command string
		want    Decision
	}{
		{arithChain("3", 20), Allow},
		{arithChain("'x[$(rm -rf /)]'", 20), Forbidden},
		{arithChain("3", maxArithDepth+1), Escalated},
		{arithChain("'x[$(rm -rf /)]'", maxArithDepth+1), Escalated}, // never allowed unread
		{`x=x+1; echo $((x))`, Allow},
		{`x='y+1'; y='x*2'; echo $((x))`, Allow},
		{`a=('a[0]+1'); echo $((a[0]))`, Allow},
		{`declare -n r='r[0]'; echo $((r))`, Allow},
		{`x='x[$(rm -rf /)]+x'; echo $((x))`, Forbidden},
		{`i=3; j=i; a=(1 2); echo $((j+a[1]))`, Allow},
		{`v0=1; v1='v0+v0'; v2='v1+v1'; v3='v2+v2'; echo $((v3))`, Allow},
		{`v0=1; v1='v0+v0+v0+v0+v0+v0+v0+v0+v0+v0+v0'; v2=${v1//v0/v1}; v3=${v1//v0/v2}; v4=${v1//v0/v3}; v5=${v1//v0/v4}; echo $((v5))`, Escalated},
	})
}
