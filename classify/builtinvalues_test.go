package classify

import "testing"

// TestBuiltinValuesArith: the values builtins store where the line does
// not compute them exactly (printf -v with flags or escapes, read from a
// pipe of literal text, a nameref given its target by a builtin, a write
// through a nameref to an element or to a run-time target) stay possible
// values arithmetic follows, while the everyday idioms stay allowed.
func TestBuiltinValuesArith(t *testing.T) {
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		want Decision
	}{
		{`printf -v n '%05d' 3; echo $((n+1))`, Allow},
		{`printf -v ts '%(%s)T'; echo $((ts))`, Allow},
		{`printf -v ts '%(%s)T' -1; echo $((ts - 5))`, Allow},
		{`printf -v line '%-10s|' name; echo "$line"`, Allow},
		{`read -r a b c <<< "1 2 3"; echo $((a+b))`, Allow},
		{`while read -r n; do echo $((n*2)); done < file`, Allow},
		{`echo 3 | { read n; echo $((n*2)); }`, Allow},
		{`read n < <(echo 3); echo $((n+1))`, Allow},
		{`declare -n ref=arr; ref[0]=x`, Allow},
		{`a=(1 2 3); declare -n r='a[-1]'; r=7; echo $((a[2]+1))`, Allow},
		{`declare -n r; mapfile -t r <<< i; echo $((r+1))`, Allow},
		{`i=1; declare -n r=$X; echo $((r+1))`, Allow},
		// a target only known at run time may be any variable
		{`i='x[$(rm -rf /)]'; declare -n r=$X; echo $((r))`, Forbidden},
		{`i='x[$(rm -rf /)]'; declare -n r=$X; r=1; echo $((i))`, Forbidden},
		{`i='x[$(rm -rf /)]'; declare -n r='a[$X]'; r=1; echo $((i))`, Forbidden},
		{`shopt -s lastpipe; echo "$X" | read i; rm -rf "$i"`, Escalated},
		{`printf -v 'a[1]' '%5s' 'x[$(rm -rf /)]'; echo $((a[1]))`, Forbidden},
		{`printf -v i '%s%s' 'x[$(' 'rm -rf /)]'; echo $((i))`, Forbidden},
		{`printf -v i '%c%c' x y; echo $((i))`, Allow},
	} {
		if got := c.Classify(tc.line); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.line, got.Decision, got.Rule, tc.want)
		}
	}
}

// TestPossibleVals: a value read from text that may hold a run-time part
// kept as its source is only a possible value.
func TestPossibleVals(t *testing.T) {
	got := possibleVals(map[string]varVal{
		"i": {val: "x", known: true},
		"a": {val: "p q", known: true, arr: []string{"p", "q"}},
		"r": {},
	})
	if v := got["i"]; v.known || !v.hasDflt || v.dflt != "x" {
		t.Errorf("scalar: %+v", v)
	}
	if v := got["a"]; v.known || !v.hasDflt || v.dflt != "p q" || len(v.dfltArr) != 2 {
		t.Errorf("array: %+v", v)
	}
	if v := got["r"]; v.known || v.hasDflt {
		t.Errorf("run-time: %+v", v)
	}
}
