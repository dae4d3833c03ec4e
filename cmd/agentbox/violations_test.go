package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

func TestPrintViolations(t *testing.T) {
	v := func(kind, rule, detail string) agentbox.Violation {
		return agentbox.Violation{Kind: kind, Rule: rule, Detail: detail}
	}
	var flood []agentbox.Violation
	for i := 0; i < 12; i++ {
		flood = append(flood, v("network", "default-deny", fmt.Sprintf("h%d.org:443", i)))
	}
	tests := []struct {
		name string
		in   []agentbox.Violation
		want []string
	}{
		{"network last", []agentbox.Violation{v("network", "default-deny", "a.org:443"), v("filesystem", "planted-repository", "/w/x/.git")},
			[]string{"agentbox: filesystem planted-repository: /w/x/.git", "agentbox: network default-deny: a.org:443"}},
		{"each rule bounded on its own", append(append([]agentbox.Violation{}, flood...), v("filesystem", "planted-repository", "/w/x/.git")),
			append(append([]string{"agentbox: filesystem planted-repository: /w/x/.git"}, func() []string {
				var l []string
				for i := 0; i < maxViolationLines; i++ {
					l = append(l, fmt.Sprintf("agentbox: network default-deny: h%d.org:443", i))
				}
				return l
			}()...), "agentbox: network default-deny: … and 2 more (see --json)")},
		{"no rule", []agentbox.Violation{v("memory", "", "oom kill")}, []string{"agentbox: memory: oom kill"}},
		{"long detail clipped", []agentbox.Violation{v("network", "invalid-target", strings.Repeat("a", 5000))},
			[]string{"agentbox: network invalid-target: " + strings.Repeat("a", maxViolationDetail-1) + "…"}},
		{"escaped", []agentbox.Violation{v("filesystem", "planted\x1b[2J", "/w/\u202ex")},
			[]string{`agentbox: filesystem planted\x1b[2J: /w/\u202ex`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			printViolations(&b, tt.in)
			got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
