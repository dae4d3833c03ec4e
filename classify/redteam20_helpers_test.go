package classify

import "testing"

// rt20Case is one command of a red-team-20 table: the decision it must get
// at least (exactly, when exact is set).
type rt20Case struct {
	command string
	want    Decision
	exact   bool
}

func rt20Check(t *testing.T, cases []rt20Case) {
	t.Helper()
	c := Default()
	for _, tc := range cases {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
