//go:build linux

package classify

import (
	"strings"
	"testing"
	"time"
)

// TestRedteam23LoopCostAndFalsePositives: regressions of the new loop
// values (flow.go) and recursive-read rule, on harmless lines.
//   - Nested loops multiply: each level walks its body once per literal
//     word (up to 16) plus a dry walk, so three levels of 16 words walk
//     the innermost body 17³ ≈ 4 900 times. for a in 1…16; do for b in
//     1…16; do for c in 1…16; do echo "$a$b$c" >> out.txt; done; done;
//     done (204 bytes) takes ~320 ms to classify on the shared 2-core
//     machine (~160 µs before d1f9c19), and one more harmless command in
//     the body (; echo) exhausts the step budget: escalated
//     (parse-error) for a loop that only echoes.
//   - cd ~ && cd project && grep -r TODO . is escalated
//     (credential-access): the && chain is joined as if cd project might
//     not have run, the more critical directory (~) kept, although grep
//     only runs once both cds succeeded. The same for tar czf ../p.tgz .
//     and rg TODO there; cd ~/project && grep -r TODO . is allow.
//
// Severity: low (cost is bounded by the 1 s / 20 000-step limits; false
// escalations ask a person). Root and unprivileged alike.
//
// A fix would need: a budget for loop values shared by nested loops (the
// product of the levels' words bounded, falling back to the run-time
// value, not parse-error), or memoising a body walk by the values it
// reads; for A && B, B's state taken from A's success path only (the
// join kept for what follows `;`).
//
// Fixed: the judged loop words are bounded across nesting (looprisk.go
// pickLoopValues: 16, or 64 risky ones, divided by the judged walks of the
// loops around and by 2 per loop nested inside; past it the run-time
// value), a file's alternative texts are capped (files.go maxFileTexts),
// and after X && Y, Y starts where X ends when it succeeds (flow.go andOr,
// analyzer.cdOK).
func TestRedteam23LoopCostAndFalsePositives(t *testing.T) {
	w := "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"
	nest3 := func(body string) string {
		return "for a in " + w + "; do for b in " + w + "; do for c in " + w + "; do " + body + "; done; done; done"
	}
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{nest3(`echo "$a$b$c" >> out.txt`), Sandboxed},
		{nest3(`echo "$a$b$c" >> out.txt; echo`), Sandboxed},
		{nest3(`echo "$a$b$c"; echo; echo`), Allow},
		{`cd ~ && cd project && grep -r TODO .`, Allow},
		{`cd ~ && cd project && tar czf ../p.tgz .`, Sandboxed},
		{`cd ~ && cd project && rg TODO`, Allow},

		// Controls.
		{`for a in 1 2 3; do for b in 1 2 3; do echo "$a$b" >> out.txt; done; done`, Sandboxed},
		{`cd ~/project && grep -r TODO .`, Allow},
	} {
		best := time.Hour
		var got Result
		for i := 0; i < 3; i++ {
			start := time.Now()
			got = c.Classify(tc.command)
			best = min(best, time.Since(start))
		}
		name := tc.command
		if len(name) > 70 {
			name = name[:70] + "…"
		}
		if got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, %s), want %s", name, got.Decision, got.Rule, strings.TrimSpace(got.Reason), tc.want)
		}
		if best > 100*time.Millisecond {
			t.Errorf("%q: %v to classify (best of 3), want < 100ms", name, best)
		}
	}
}
