package classify

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Work is meant to be bounded by the step limit (20 000 statements and
// units). A function the line defines is now walked at every call, and a
// case arm costs a snapshot and pattern expansion but no step: a function
// with a few thousand empty case arms, called 2^12 times through a
// doubling chain of functions, keeps the analyzer busy for seconds of host
// CPU on a 5.5 KB line and for tens of seconds on a 44 KB one (5 000 arms:
// measured 44 s; 4.5 ms before state scoping), before the line is
// escalated. Classify takes no context, and
// Manager.classify runs it synchronously, so an agent ties up a host core
// per command.
//
// Fixed: a case arm and a state copy cost a step, each function call the
// body's size, at most 1 024 calls are followed and one Classify call gets
// at most a second of host time, past which the line is escalated.
func TestRedteam19StepCost(t *testing.T) {
	var arms strings.Builder
	for i := range 600 {
		fmt.Fprintf(&arms, "p%d) ;; ", i)
	}
	f0 := "f0() { case $1 in " + arms.String() + "esac; }; "
	var chain strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&chain, "f%d() { f%d; f%d; }; ", i, i-1, i-1)
	}
	c := Default()
	for _, tc := range []struct {
		name, command string
		want          Decision
	}{
		{"attack", f0 + chain.String() + "f12; ls", Escalated},
		{"control: one call", f0 + "f0; ls", Sandboxed},
		{"control: chain without arms", "f0() { :; }; " + chain.String() + "f12; ls", Sandboxed},
	} {
		done := make(chan Result, 1)
		start := time.Now()
		go func() { done <- c.Classify(tc.command) }()
		select {
		case r := <-done:
			if r.Decision < tc.want {
				t.Errorf("%s: %s (%s), want at least %s", tc.name, r.Decision, r.Rule, tc.want)
			}
			t.Logf("%s: %d bytes, %v, %s", tc.name, len(tc.command), time.Since(start), r.Decision)
		case <-time.After(2 * time.Second):
			t.Errorf("%s: %d-byte line still being classified after 2 s", tc.name, len(tc.command))
		}
	}
}
