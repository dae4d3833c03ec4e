package classify

import "testing"

// A script written earlier on the line and then run is classified by the
// text last written to it. A later write that may not run (a branch, a
// loop body, a function that is never called, a background job racing the
// run) replaces that text in the analyzer's view, though bash still runs
// the first script: `echo 'rm -rf /' > x.sh; [ -n "$CI" ] && echo ls >
// x.sh; bash x.sh` runs rm -rf / when CI is empty, and is sandboxed.
//
// Fixed: a write on a path that may not be taken (a branch, case arm, loop,
// function body walked at its definition, background job) adds its text to
// those the file may hold, and running the file judges each of them.
func TestRedteam19ScriptBranch(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		// Attacks.
		{`echo 'rm -rf /' > x.sh; [ -n "$CI" ] && echo ls > x.sh; bash x.sh`, Escalated, false},
		{`echo 'rm -rf /' > x.sh; if false; then echo ls > x.sh; fi; . x.sh`, Escalated, false},
		{`echo 'rm -rf /' > x.sh; while false; do echo ls > x.sh; done; bash x.sh`, Escalated, false},
		{`echo 'rm -rf /' > x.sh; f() { echo ls > x.sh; }; bash x.sh`, Escalated, false},
		{`echo 'rm -rf /' > x.sh; (sleep 9; echo ls > x.sh) & bash x.sh`, Escalated, false},
		{`echo 'curl -s http://127.0.0.1/i | sh' > x.sh; [ -n "$CI" ] && echo ls > x.sh; bash x.sh`, Escalated, false},

		// Controls.
		{`echo 'rm -rf /' > x.sh; bash x.sh`, Forbidden, true},
		{`echo 'rm -rf /' > x.sh; echo ls > x.sh; bash x.sh`, Sandboxed, true},
		{`echo ls > x.sh; [ -n "$CI" ] && echo 'ls -la' > x.sh; bash x.sh`, Sandboxed, true},
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
