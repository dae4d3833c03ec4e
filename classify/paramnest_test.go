package classify

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

func TestHasSubst(t *testing.T) {
	for _, tc := range []struct {
		word string
		want []bool // the word, then each nested operator word, outermost first
	}{
		{`${X:-a}`, []bool{false, false}},
		{`${X:-$(id)}`, []bool{true, true}},
		{`${X:-${Y:-$((1+1))}}`, []bool{true, true, true}},
		{`${X:-${Y:-a}$(id)}`, []bool{true, true, false}},
		{`"${X:-$(id)}"`, []bool{true, true}},
		{`${X:-${Y:-${Z:-~/.ssh}}}`, []bool{false, false, false, false}},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+tc.word), "")
		if err != nil {
			t.Fatal(err)
		}
		words := []*syntax.Word{f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]}
		syntax.Walk(words[0], func(n syntax.Node) bool {
			if p, ok := n.(*syntax.ParamExp); ok && p.Exp != nil && p.Exp.Word != nil {
				words = append(words, p.Exp.Word)
			}
			return true
		})
		// Ask innermost first, as the deferred assignDefault calls do.
		a := newAnalyzer(Default())
		for i := len(words) - 1; i >= 0; i-- {
			if got := a.hasSubst(words[i]); got != tc.want[i] {
				t.Errorf("%s: word %d: hasSubst %v, want %v", tc.word, i, got, tc.want[i])
			}
		}
	}
}

// TestNestedParamOpsLinear: every operator nested in the words of others
// is expanded once per use, whatever the operator (${X:=…} is expanded for
// its value and for what it assigns), and past the limits the line is
// escalated rather than walked on.
func TestNestedParamOpsLinear(t *testing.T) {
	c := Default()
	nest := func(n int, open func(i int) string) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.WriteString(open(i))
		}
		return sb.String() + "~/.ssh/id_rsa" + strings.Repeat("}", n)
	}
	empty := func(n int) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&sb, "A%d=; ", i)
		}
		return sb.String()
	}
	for _, tc := range []struct {
		name, cmd string
	}{
		{"assign", "cat " + nest(8000, func(int) string { return "${X:=" })},
		{"assign-unset", "cat " + nest(8000, func(int) string { return "${X=" })},
		{"alternate-known", "X=1; cat " + nest(8000, func(int) string { return "${X:+" })},
		{"assign-known-empty", empty(4000) + "cat " + nest(4000, func(i int) string { return fmt.Sprintf("${A%d:=", i) })},
		{"mixed", "cat " + nest(8000, func(i int) string { return []string{"${X:=", "${Y:-", "${W:+", "${V-", "${!Z:-"}[i%5] })},
		{"past-limits", "cat " + nest(30000, func(int) string { return "${X:-" })},
	} {
		// A tenth of the nesting, timed just before: linear work takes
		// about ten times as long for the case, quadratic a hundred times.
		// The bound is relative, as the machine's load varies (3.1 and
		// 3.2 s were seen under two test suites at once, 0.9 s idle for
		// past-limits, whose unwinding copies each level's text, bounded:
		// about n^1.5, 30 times the control idle), and each time is the
		// least of a few runs, so that one stall under load is not taken
		// for the work.
		least := func(runs int, cmd string) (time.Duration, Result) {
			var best time.Duration
			var got Result
			for i := range runs {
				start := time.Now()
				got = c.Classify(cmd)
				if d := time.Since(start); i == 0 || d < best {
					best = d
				}
			}
			return best, got
		}
		control, _ := least(3, "cat "+nest(3000, func(int) string { return "${X:-" }))
		d, got := least(2, tc.cmd)
		// ~0.1 s each, past-limits ~1 s; quadratic was seconds,
		// exponential never ends.
		if d > max(slowdown*3*time.Second, 60*control) {
			t.Errorf("%s: classified in %v (a tenth of the nesting: %v)", tc.name, d, control)
		}
		if got.Decision != Escalated {
			t.Errorf("%s: %s, want escalated", tc.name, got.Decision)
		}
	}
}
