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
		{loop: `for f in ` + strings.Repeat("a b c d e f g h i j k l m n o p q ", 1) + "r", cwd: "~",
			want: strings.Fields("a b c d e f g h i j k l m n o p"), runtime: true},
		{loop: `for f in a b c d e f g h i j k l m n o p q r`, cwd: "/work/x",
			want: strings.Fields("a b c d e f g h i j k l m n o p"), runtime: true, item: true},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(tc.loop+"; do :; done"), "")
		if err != nil {
			t.Fatalf("%q: %v", tc.loop, err)
		}
		a := newAnalyzer(Default())
		a.cwd = tc.cwd
		all, vals := a.loopValues(f.Stmts[0].Cmd.(*syntax.ForClause).Loop.(*syntax.WordIter))
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
