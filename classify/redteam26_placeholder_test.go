package classify

import (
	"strings"
	"testing"
	"time"
)

// TestRedteam26ClassifyPlaceholderBlowup: programs that paste arguments
// into a command ({} of find -exec, xargs -I{}, parallel; {x} of
// hyperfine -L) are classified with the placeholder replaced, and the
// replacement was built with strings.ReplaceAll once per argument without
// any size, budget or deadline check. A line of 60–170 KB then keeps the
// classifier busy for seconds: parallel 'echo {}{}…' ::: a… builds
// gigabytes; a find with thousands of -exec actions rescans its arguments
// for each; {}{}{}… (which SplitBraces cuts into one part per brace) is
// added to its field one part at a time; hyperfine runs each of its
// commands once per list value. README promises one second of host time
// and 4 MiB of values per line.
//
// Severity: medium for availability (one line stalls any caller
// classifying agent input), no sandbox escape.
//
// Fixed: paste (placeholders.go) sizes each substitution before building
// it, charges it to the line's 4 MiB of values and checks the deadline,
// escalating past 64 KiB or the budget (parallel, xargs, hyperfine); find
// charges what its -exec words expand to once (checkFindPaste) and asks
// findFilteredAt for all its actions in one pass; joinLits joins the
// literal parts SplitBraces leaves.
func TestRedteam26ClassifyPlaceholderBlowup(t *testing.T) {
	c := Default()
	run := func(line string) (Result, time.Duration, bool) {
		done := make(chan Result, 1)
		start := time.Now()
		go func() { done <- c.Classify(line) }()
		select {
		case r := <-done:
			return r, time.Since(start), true
		case <-time.After(slowdown * 10 * time.Second):
			return Result{}, time.Since(start), false
		}
	}
	// Controls: a pasted command is still judged.
	for _, ctl := range []string{
		`find . -exec cat ~/.ssh/id_rsa \;`,
		`parallel 'cat {}' ::: ~/.ssh/id_rsa`,
		`echo ~/.ssh/id_rsa | xargs -I{} cat {}`,
	} {
		r, d, ok := run(ctl)
		if !ok || d > slowdown*time.Second || r.Decision == Allow {
			t.Errorf("control %q: %s in %v (finished %v); want not allow", ctl, r.Decision, d, ok)
		}
	}
	list := strings.TrimSuffix(strings.Repeat("abcdefghij,", 6000), ",") // 66 KB
	for _, line := range []string{
		"parallel 'echo " + strings.Repeat("{}", 20000) + "' ::: " + strings.Repeat("aaaaaaaaa ", 6000),
		"find . " + strings.Repeat(`-exec echo {} \; `, 10000),
		"find . -exec echo " + strings.Repeat("{}", 150000) + ` \;`,
		"xargs -I{} echo " + strings.Repeat("{}", 150000),
		"L=" + list + "; hyperfine -L x \"$L\" " + strings.Repeat("'echo {x}' ", 20000),
		"X=" + strings.Repeat("a", 60000) + "; find \"$X\" " + strings.Repeat(`-exec rm {} \; `, 5000),
	} {
		r, d, ok := run(line)
		if !ok || d > slowdown*time.Second {
			t.Errorf("%.60q…: took %v (finished %v, decision %s); want under 1 s", line, d, ok, r.Decision)
		}
	}
}
