package classify

import (
	"strings"
	"testing"
	"time"
)

// TestRedteam26ReplaceBlowup: ${X//pat/$X} is computed with
// regexp.ReplaceAllStringFunc on the whole value before any size check, so
// a short line squares a value's length at each step and the classifier
// builds gigabytes and runs for tens of seconds.
//
// The attack: `X=ab; X=${X//?/$X}` repeated 5 times (a 90-byte line): the
// fourth step makes 65 536 bytes, the fifth asks for 4 GiB. Measured on the
// dev machine: ~40–50 s of CPU (and the 4 GiB allocation) for one Classify
// call; 6 repeats of `X=${X//?/$X}` followed by `cat $X` came back "allow"
// after 112 s, so the 4 MiB value budget did not even escalate it. A 60 KB
// line `X=aaa…; Y=${X//a/$X}` takes ~20 s. README promises "one second of
// host time" and 64 KiB per computed value.
//
// Severity: high for availability (any caller classifying agent input can
// be stalled / OOM-killed by one short line), no sandbox escape.
// Fix: bound replaceValue before building: count matches (or compute
// len(s)+matches*len(with) incrementally) and give up (run-time value +
// spendValue/limit) past 64 KiB; check the deadline inside the loop.
//
// Fixed: replaceAll (paramtransform.go) sizes the result from the matches
// before building it; past maxValue it is not built (a run-time value) and
// its size is charged to the line's 4 MiB budget, which escalates the line.
func TestRedteam26ReplaceBlowup(t *testing.T) {
	c := Default()
	run := func(line string) (Result, time.Duration, bool) {
		done := make(chan Result, 1)
		start := time.Now()
		go func() { done <- c.Classify(line) }()
		select {
		case r := <-done:
			return r, time.Since(start), true
		case <-time.After(5 * time.Second):
			return Result{}, time.Since(start), false
		}
	}
	// Control: three squarings (256 bytes) classify at once, and the
	// payload after them is still seen.
	ctl := "X=ab; " + strings.Repeat("X=${X//?/$X}; ", 3) + "cat ~/.ssh/id_rsa"
	r, d, ok := run(ctl)
	if !ok || d > slowdown*time.Second || r.Decision != Escalated {
		t.Fatalf("control %q: %s in %v (finished %v)", ctl, r.Decision, d, ok)
	}
	for _, line := range []string{
		"X=ab; " + strings.Repeat("X=${X//?/$X}; ", 5) + "cat README.md",
		"X=" + strings.Repeat("a", 60000) + "; Y=${X//a/$X}; cat $Y",
	} {
		r, d, ok := run(line)
		if !ok || d > slowdown*time.Second {
			t.Errorf("%.60q…: took %v (finished %v, decision %s); want under 1 s", line, d, ok, r.Decision)
		}
	}
}
