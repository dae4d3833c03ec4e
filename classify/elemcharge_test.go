package classify

import (
	"strings"
	"testing"
)

// TestElemAssignCharged: each element assignment charges the value it
// re-joins to the line's values, so thousands of them to one array escalate
// ("values too large") rather than take quadratic time, in one command as
// across statements, while a few hundred stay as judged before.
func TestElemAssignCharged(t *testing.T) {
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prefix, elem, sep string
		n                 int
		want              Decision
	}{
		{"declare -A m; ", "m[k%]=v", " ", 500, Allow},
		{"a=(); ", "a[%]=v", "; ", 500, Allow},
		{"declare -A m; ", "m[k%]=v", " ", 5000, Escalated},
		{"a=(); ", "a[%]=v", " ", 5000, Escalated},
		{"a=(); ", "a[%]=v", "; ", 5000, Escalated},
	} {
		var b strings.Builder
		b.WriteString(tc.prefix)
		for i := 0; i < tc.n; i++ {
			b.WriteString(strings.Replace(tc.elem, "%", itoa(i), 1) + tc.sep)
		}
		if tc.sep == " " {
			b.WriteString("; ")
		}
		b.WriteString(`echo "${a[1]}${m[k1]}"`)
		if got := c.Classify(b.String()); got.Decision != tc.want {
			t.Errorf("%d × %q sep %q: %s (%s), want %s", tc.n, tc.elem, tc.sep, got.Decision, got.Rule, tc.want)
		}
	}
}
