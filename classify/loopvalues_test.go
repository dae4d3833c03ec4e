package classify

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestLoopValues checks the values a for-loop body is judged with: each
// literal word (non-relative ones first, at most maxLoopValues), and a
// run-time value only for words with run-time parts, globs, or words past
// the bound.
func TestLoopValues(t *testing.T) {
	many := strings.Repeat("w ", maxLoopValues+1)
	for _, tc := range []struct {
		loop    string
		cwd     string
		mult    int      // judged walks of the loops around it
		want    []string // the literal values, in order
		runtime bool     // a run-time value is among them
		item    bool     // the run-time value is a never-empty relative word
	}{
		{loop: `for f in a.txt b.txt`, want: []string{"a.txt", "b.txt"}, item: true},
		{loop: `for f in a ~/.ssh/id_rsa a`, want: []string{"~/.ssh/id_rsa", "a"}},
		{loop: `for f in /etc x`, want: []string{"/etc", "x"}},
		{loop: `for f in *.txt`, want: []string{"*.txt"}, runtime: true, item: true},
		{loop: `for f in $X y`, want: []string{"y"}, runtime: true},
		{loop: `for f`, runtime: true},
		{loop: `for f in ` + many, want: []string{"w"}, item: true},
		// In the home every word is a risky one: up to maxLoopRisky.
		{loop: `for f in a b c d e f g h i j k l m n o p q r`, cwd: "~",
			want: strings.Fields("a b c d e f g h i j k l m n o p q r"), item: true},
		{loop: `for f in ~/{a..z}{a..c}`, want: strings.Fields(homeWords(maxLoopRisky)), runtime: true},
		// Past the bound, the run-time value takes one of the 16 walks.
		{loop: `for f in a b c d e f g h i j k l m n o p q r`, cwd: "/work/x",
			want: strings.Fields("a b c d e f g h i j k l m n o"), runtime: true, item: true},
		// Risky words first, however many decoys come before them.
		{loop: `for f in /nonexistent/{a..p} ~/.ssh/id_rsa`,
			want: append([]string{"~/.ssh/id_rsa"}, strings.Fields(brace("/nonexistent/", "abcdefghijklmn"))...), runtime: true},
		{loop: `for f in {a..q} .ssh/id_rsa`, cwd: "~",
			want: append([]string{".ssh/id_rsa"}, strings.Fields("a b c d e f g h i j k l m n o p q")...), item: true},
		{loop: `for f in /work/{a..n} /etc/passwd ~/x ~/.bashrc`,
			want: strings.Fields("~/.bashrc /etc/passwd ~/x " + brace("/work/", "abcdefghijkl")), runtime: true},
		{loop: `for f in /work/x /etc/passwd ~/x ~/.bashrc`, want: strings.Fields("/work/x /etc/passwd ~/x ~/.bashrc")},
		// Inside a loop judged 16 times: only risky words, up to 64/16.
		{loop: `for f in a b c`, mult: 16, runtime: true, item: true},
		{loop: `for f in a ~/.ssh/id_rsa b /etc/passwd ~/x ~/y ~/z`, mult: 16,
			want: strings.Fields("~/.ssh/id_rsa /etc/passwd ~/x ~/y"), runtime: true},
		{loop: `for f in a`, mult: 64, runtime: true, item: true},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(tc.loop+"; do :; done"), "")
		if err != nil {
			t.Fatalf("%q: %v", tc.loop, err)
		}
		a := newAnalyzer(Default())
		a.cwd, a.loopMult = tc.cwd, tc.mult
		all, vals := a.loopValues(f.Stmts[0].Cmd.(*syntax.ForClause).Loop.(*syntax.WordIter), 1)
		var lits []string
		runtime := false
		for _, v := range vals {
			if v.known {
				lits = append(lits, v.val)
			} else {
				runtime = true
			}
		}
		if strings.Join(lits, " ") != strings.Join(tc.want, " ") || runtime != tc.runtime || all.item != tc.item {
			t.Errorf("%q (cwd %q): values %q, run-time %v, item %v; want %q, %v, %v",
				tc.loop, tc.cwd, lits, runtime, all.item, tc.want, tc.runtime, tc.item)
		}
	}
}

// TestLoopDepth: how deeply loops nest in a loop body (function bodies
// not counted), which divides the values the loop is judged with.
func TestLoopDepth(t *testing.T) {
	for _, tc := range []struct {
		body string
		want int
	}{
		{`echo`, 0},
		{`for b in 1; do :; done`, 1},
		{`while x; do for c in 1; do :; done; done; for d in 1; do :; done`, 2},
		{`if x; then (for b in 1; do until y; do :; done; done); fi`, 2},
		{`f() { for b in 1; do :; done; }`, 0},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(tc.body), "")
		if err != nil {
			t.Fatalf("%q: %v", tc.body, err)
		}
		if got := loopDepth(f.Stmts); got != tc.want {
			t.Errorf("loopDepth(%q) = %d, want %d", tc.body, got, tc.want)
		}
	}
}

// brace returns prefix followed by each letter, as prefix{a,b,…} gives.
func brace(prefix, letters string) string {
	var b strings.Builder
	for _, l := range letters {
		b.WriteString(prefix + string(l) + " ")
	}
	return b.String()
}

// homeWords returns the first n words ~/{a..z}{a..c} gives.
func homeWords(n int) string {
	var w []string
	for x := 'a'; x <= 'z'; x++ {
		for y := 'a'; y <= 'c'; y++ {
			w = append(w, "~/"+string(x)+string(y))
		}
	}
	return strings.Join(w[:n], " ")
}

// TestLoopValueVerdicts: a for or select body is judged with each literal
// word as the variable's value, a relative one resolved against the
// working directory; globs and run-time words keep the run-time value.
func TestLoopValueVerdicts(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`for f in ~/.ssh/id_rsa; do cat "$f"; done`, Escalated},
		{`for f in ~/.ssh/*; do cat "$f"; done`, Escalated},
		{`select f in a ~/.aws/credentials; do cat "$f"; done`, Escalated},
		{`cd ~; for f in *; do rm -rf "$f"; done`, Forbidden},
		{`cd ~; for f in .ssh; do rm -rf "$f"; done`, Forbidden},
		{`for f in /etc/passwd; do echo x > "$f"; done`, Forbidden},
		{`for f in a b; do for g in ~/.ssh/id_rsa; do cat "$f" "$g"; done; done`, Escalated},
		{`for c in rm; do $c -rf /; done`, Forbidden},
		{`for f in .*; do rm -rf "$f"; done`, Escalated},
		{`for f in a.txt b.txt; do cat "$f"; done`, Allow},
		{`for i in 1 2 3; do echo "$i"; done`, Allow},
		{`for f in *.go; do head -1 "$f"; done`, Allow},
		{`for d in build dist; do rm -rf "$d"; done`, Sandboxed},
		{`cd /tmp/x; for d in build dist; do rm -rf "$d"; done`, Sandboxed},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
