package classify

import (
	"slices"
	"strings"
	"testing"
)

// Texts the line may have put in a run-time value are followed by
// arithmetic only: everyday uses of OPTARG, BASH_REMATCH, $_ and values
// joined after a branch or loop stay as they were.
func TestMaybeTextsVerdicts(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`getopts ab: o -b 3; echo $((OPTARG+1))`, Allow},
		{`while getopts "ab:" o; do case $o in b) n=$OPTARG;; esac; done; echo $((n+1))`, Allow},
		{`set -- -n 5; getopts n: o; echo $((OPTARG*2))`, Allow},
		{`[[ $x =~ ^([0-9]+)$ ]] && echo $((BASH_REMATCH[1]+1))`, Allow},
		{`[[ v12 =~ ([0-9]+) ]] && echo $((BASH_REMATCH[1]+1))`, Allow},
		{`ls foo && cd "$_" && ls`, Allow},
		{`echo 3; echo $((_+1))`, Allow},
		{`n=0; for f in a b; do n=$((n+1)); done; echo $((n))`, Allow},
		{`[ -d / ] && i=2; echo $((i))`, Allow},
		{`[ -d / ] && i=j; j='x[$(rm -rf /)]'; echo $((i))`, Forbidden},
		{`getopts a: o -a j; j='x[$(rm -rf /)]'; echo $((OPTARG))`, Forbidden},
		{`: 'x[$(rm -rf /)]'; echo hi; echo $((_))`, Allow}, // $_ is echo's last word now
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}

func TestJoinMaybe(t *testing.T) {
	for _, tc := range []struct {
		name string
		vs   []varVal
		want []string
	}{
		{"numbers left out", []varVal{{val: "1", known: true}, {val: "2", known: true}}, nil},
		{"known and possible", []varVal{{val: "b", known: true}, {dflt: "a", hasDflt: true}}, []string{"a", "b"}},
		{"arrays and maybe", []varVal{{arr: []string{"x", "1"}, known: true}, {maybe: []string{"x", "y"}}}, []string{"x", "y"}},
		{"run-time", []varVal{{}, {}}, nil},
	} {
		if got := joinMaybe(tc.vs...); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	var many []string
	for i := range maxMaybe + 10 {
		many = append(many, "a"+itoa(i))
	}
	many = append(many, "z[$(x)]")
	got := boundMaybe(many)
	if len(got) != maxMaybe || !strings.Contains(got[0], "$") {
		t.Errorf("boundMaybe: %d texts, first %q; want %d, code first", len(got), got[0], maxMaybe)
	}
}
