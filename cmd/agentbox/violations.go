package main

import (
	"fmt"
	"io"
	"sort"
	"unicode/utf8"

	"github.com/agentbox-dev/agentbox"
)

// maxViolationLines bounds what printViolations writes of one kind and
// rule; --json has all. maxViolationDetail bounds one line's detail (an
// agent may ask the proxy for a host name of kilobytes).
const (
	maxViolationLines  = 10
	maxViolationDetail = 240
)

// printViolations tells the user, a line each, what the sandbox refused or
// changed on their behalf (a planted repository disabled, a connection
// refused), so that it is not learnt from --json alone. Each kind and rule
// is bounded on its own, and network refusals come last: a command can
// cause as many of those as it likes, and they must not push a planted
// repository's line out of the report (TestRedteam41ViolationFloodHidesPlant).
func printViolations(w io.Writer, vs []agentbox.Violation) {
	type group struct {
		rule string
		vs   []agentbox.Violation
	}
	var groups []*group
	byRule := make(map[string]*group)
	for _, v := range vs {
		rule := v.Kind
		if v.Rule != "" {
			rule += " " + v.Rule
		}
		g := byRule[rule]
		if g == nil {
			g = &group{rule: escapeControls(rule)}
			byRule[rule] = g
			groups = append(groups, g)
		}
		g.vs = append(g.vs, v)
	}
	sort.SliceStable(groups, func(i, j int) bool {
		return groups[i].vs[0].Kind != "network" && groups[j].vs[0].Kind == "network"
	})
	for _, g := range groups {
		for i, v := range g.vs {
			if i == maxViolationLines {
				fmt.Fprintf(w, "agentbox: %s: … and %d more (see --json)\n", g.rule, len(g.vs)-i)
				break
			}
			fmt.Fprintf(w, "agentbox: %s: %s\n", g.rule, clip(escapeControls(v.Detail), maxViolationDetail))
		}
	}
}

// clip shortens s to at most n characters, the last of them an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
