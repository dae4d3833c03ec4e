package shquote

import (
	"slices"
	"testing"

	"mvdan.cc/sh/v3/shell"
)

func TestJoin(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"ls", "-la", "/tmp"}, "ls -la /tmp"},
		{[]string{"sh", "-c", "echo out; exit 3"}, "sh -c 'echo out; exit 3'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"a=b", "x*"}, "a=b 'x*'"},
	}
	for _, tc := range tests {
		got := Join(tc.argv)
		if got != tc.want {
			t.Errorf("Join(%q) = %s, want %s", tc.argv, got, tc.want)
		}
		back, err := shell.Fields(got, func(string) string { return "" })
		if err != nil || !slices.Equal(back, tc.argv) {
			t.Errorf("the shell splits %s into %q (%v), want %q", got, back, err, tc.argv)
		}
	}
}
