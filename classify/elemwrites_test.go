package classify

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestConstArith: an element's subscript is computed as bash computes it
// when it is constant on the line; anything else is left to run time.
func TestConstArith(t *testing.T) {
	a := &analyzer{vars: map[string]varVal{"n": {val: "3", known: true}, "s": {val: "x", known: true}}}
	for _, tc := range []struct {
		sub  string
		want int
		ok   bool
	}{
		{"1+0", 1, true}, {"-2", -2, true}, {" 1", 1, true}, {"(2*3)%4", 2, true},
		{"010+1", 9, true}, {"n-1", 2, true}, {"1<<2|1", 5, true}, {"~0", -1, true},
		{"1/0", 0, false}, {"i++", 0, false}, {"s", 0, false}, {"m", 0, false}, {"$(x)", 0, false},
	} {
		n, ok := a.constArith(subscriptExpr(tc.sub))
		if ok != tc.ok || ok && n != tc.want {
			t.Errorf("%q: %d %v, want %d %v", tc.sub, n, ok, tc.want, tc.ok)
		}
	}
}

// TestOptionNames: the names printf -v and wait -p set, as their option
// parsers read them.
func TestOptionNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		args string
		want string
	}{
		{"printf", "-v x %s y", "x"},
		{"printf", "-vx %s", "x"},
		{"printf", "%s -xv", ""},
		{"wait", "-n -p a[1]", "a[1]"},
		{"wait", "-np pid", "pid"},
		{"wait", "-fnpx", "x"},
		{"wait", "-n 12", ""},
	} {
		u := &unit{name: tc.name}
		for _, w := range strings.Fields(tc.args) {
			u.args = append(u.args, field{val: w})
		}
		var got []string
		for _, f := range optionNames(u) {
			got = append(got, f.val)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}

// TestPrintfValue: the value printf -v stores: exact where the line
// knows it and printfFormat computes it, else a run-time value whose
// possible value is printfFormat's approximation.
func TestPrintfValue(t *testing.T) {
	for _, tc := range []struct {
		args, name, want string
		exact, ok        bool
	}{
		{"-v x a", "x", "a", true, true}, {"-v x %s b", "x", "b", true, true}, {"-v x %s%s a b c", "x", "abc", true, true},
		{"-v x <%s> a b", "x", "<a><b>", true, true}, {"-v x %s", "x", "", true, true}, {"-v x plain extra", "x", "plain", true, true},
		{"-vx -- %s a", "x", "a", true, true}, {"-v x -v y a", "y", "a", true, true},
		{"-v x %d 1", "x", "1", true, true}, {"-v x a\\n", "x", "a\n", true, true}, {"-v x %%s a", "x", "%s", true, true},
		{"-v x %5s a", "x", "    a", true, true}, {"-v x %-s a", "x", "a", true, true}, {"-v x %.9s a", "x", "a", true, true},
		{"-v x %b a\\x62", "x", "ab", true, true}, {"-v x \\170[1]", "x", "x[1]", true, true},
		{"-v x %05d 3", "x", "00003", true, true}, {"-v x %*s 1 a", "x", "a", true, true}, {"-v x %.1s%x x_ 1", "x", "x1", false, true}, {"-v x %d 010", "x", "8", true, true},
		{"-v x %d 99999999999999999999", "x", "99999999999999999999", false, true}, // overflow: not modelled
		{"%s a", "", "", false, false}, {"-x -v y a", "", "", false, false}, {"-v x", "", "", false, false}, {"-v x --", "", "", false, false},
	} {
		u := &unit{name: "printf"}
		for _, w := range strings.Fields(tc.args) {
			u.args = append(u.args, field{val: w})
		}
		name, v, ok := printfValue(u)
		got, exact := v.dflt, v.known
		if exact {
			got = v.val
		}
		if ok != tc.ok || ok && (name.val != tc.name || got != tc.want || exact != tc.exact) {
			t.Errorf("printf %s: %q %q exact=%v ok=%v, want %q %q %v %v", tc.args, name.val, got, exact, ok, tc.name, tc.want, tc.exact, tc.ok)
		}
	}
}

// TestWordLiteral: the text of a word given to declare that is no
// expansion, so that declare 'a[1]=v' is an assignment, not an option
// only known at run time.
func TestWordLiteral(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		ok        bool
	}{
		{`'a[1]=v'`, "a[1]=v", true}, {`"x=y"`, "x=y", true}, {`-i`, "-i", true},
		{`"$x"`, "", false}, {`$'a\n'`, "", false}, {`~/x`, "", false},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+tc.src), "")
		if err != nil {
			t.Fatal(err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]
		if l, ok := wordLiteral(w); ok != tc.ok || l != tc.want {
			t.Errorf("%s: %q %v, want %q %v", tc.src, l, ok, tc.want, tc.ok)
		}
	}
}

// TestElemWriteVerdicts: element writes and builtin values are followed
// into arithmetic; the everyday forms stay allowed.
func TestElemWriteVerdicts(t *testing.T) {
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		want Decision
	}{
		// a subscript only known at run time: the value written may be any element
		{`a=(1 2 3); a[$RANDOM]='x[$(rm -rf /)]'; echo $((a[1]))`, Forbidden},
		{`a=(1 2 3); read 'a[i]' <<< 'x[$(rm -rf /)]'; echo $((a[1]))`, Forbidden},
		{`declare -i 'n=x[$(rm -rf /)]'`, Forbidden},
		{`i='x[$(rm -rf /)]'; local_f() { local 'j=1'; }; local_f; echo $((i))`, Forbidden},
		{`printf -v i %s%s a 'x[$(rm -rf /)]'; echo $((i))`, Forbidden},
		{`printf -v i 'x[%s]' '$(rm -rf /)'; echo $((i))`, Forbidden},
		// everyday lines
		{`for ((i=0; i<3; i++)); do a[i]=$i; done; echo $((a[1] + 1))`, Allow},
		{`a=(1 2 3); a[-1]=9; echo $((a[2] * 2))`, Allow},
		{`n=$(wc -l < /etc/hosts); echo $((n + 1))`, Allow},
		{`read -r n <<< "$(nproc)"; echo $((n * 2))`, Allow},
		{`printf -v pad %s "  "; echo "$pad"`, Allow},
		{`sleep 1 & wait -n -p pid; echo "$pid"`, Allow},
		{`declare -n r; r=i; i=3; echo $((r))`, Allow},
		{`declare 'x=1'; echo $((x + 1))`, Allow},
	} {
		if got := c.Classify(tc.line); got.Decision != tc.want {
			t.Errorf("%q: %s (%s), want %s", tc.line, got.Decision, got.Rule, tc.want)
		}
	}
}
