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

// TestPrintfValue: the value printf -v stores where the line knows it.
func TestPrintfValue(t *testing.T) {
	for _, tc := range []struct {
		args, want string
		ok         bool
	}{
		{"-v x a", "a", true}, {"-v x %s b", "b", true}, {"-v x %s%s a b c", "abc", true},
		{"-v x <%s> a b", "<a><b>", true}, {"-v x %s", "", true}, {"-v x plain extra", "plain", true},
		{"-v x %d 1", "", false}, {"-v x a\\n", "", false}, {"-v x %%s a", "", false},
	} {
		u := &unit{name: "printf"}
		for _, w := range strings.Fields(tc.args) {
			u.args = append(u.args, field{val: w})
		}
		if got, ok := printfValue(u); ok != tc.ok || got != tc.want {
			t.Errorf("printf %s: %q %v, want %q %v", tc.args, got, ok, tc.want, tc.ok)
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
