package classify

import (
	"slices"
	"strings"
	"testing"
)

func TestSubNames(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"ab", []string{"a", "ab", "b"}},
		{"1ab", []string{"a", "ab", "b"}},
		{"-3", nil},
		{"v1.2", []string{"v", "v1"}},
		{"ab[1]", []string{"a", "ab ab[1]", "b b[1]"}},
	} {
		got, ok := subNames(tc.text)
		want := slices.DeleteFunc(slices.Clone(tc.want), func(s string) bool { return allDigits(s) })
		got = slices.DeleteFunc(got, func(s string) bool { return allDigits(s) })
		slices.Sort(got)
		slices.Sort(want)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("subNames(%q) = %q, %v; want %q", tc.text, got, ok, want)
		}
	}
	if _, ok := subNames(strings.Repeat("a", 100)); ok {
		t.Errorf("subNames of a 100-byte name: ok, want past maxPartBytes")
	}
	for _, tc := range []struct {
		text string
		many bool
	}{
		{"x[$(CMD)]", false},
		{"$(echo '$(CMD)')", true},
		{`$(echo \$(CMD))`, true},
		{"$((a))", true},
		{"it's", false},
	} {
		if got := slices.Contains(partTexts([]string{tc.text}), maybeMany); got != tc.many {
			t.Errorf("partTexts(%q) holds maybeMany: %v, want %v", tc.text, got, tc.many)
		}
	}
}

// Parts of a text (BASH_REMATCH, OPTARG) and $_ after a declaration:
// everyday lines stay allowed, names a part or the last word may be are
// followed.
func TestMaybePartsVerdicts(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`[[ v1.2.3 =~ ^v([0-9]+) ]] && echo $((BASH_REMATCH[1]+1))`, Allow},
		{`[[ foo_bar =~ _(.*) ]] && echo "${BASH_REMATCH[1]}"`, Allow},
		{`getopts ab: o -ab 3; echo $((OPTARG+1))`, Allow},
		{`b='x[$(rm -rf /)]'; [[ ab =~ a(b) ]]; echo $((BASH_REMATCH[1]))`, Forbidden},
		{`b=(0 'x[$(rm -rf /)]'); [[ ab[1] =~ b.1. ]]; echo $((BASH_REMATCH))`, Forbidden},
		{`[[ ab =~ a(b) ]]; b='x[$(rm -rf /)]'; echo $((BASH_REMATCH[1]))`, Forbidden},
		{`b='x[$(rm -rf /)]'; getopts :a o -b; echo $((OPTARG))`, Forbidden},
		{`declare a=1; echo $(( _ ))`, Allow},
		{`local -a xs=(1 2); echo "$_"`, Allow},
		{`export PATH=$PATH:/opt/bin; echo $_`, Allow},
		{`declare a='x[$(rm -rf /)]'; echo $(( _ ))`, Forbidden},
		{`declare -a a=('x[$(rm -rf /)]'); echo $(( _ ))`, Forbidden},
		{`declare a[1]='x[$(rm -rf /)]'; echo $(( _ ))`, Forbidden},
		{`b='x[$(rm -rf /)]'; declare a; declare b; echo $(( _ ))`, Forbidden},
		{`b='x[$(rm -rf /)]'; declare a=1 b; echo $(( _ ))`, Forbidden},
		{`declare a='x[$(rm -rf /)]'; echo hi; echo $(( _ ))`, Allow}, // $_ is echo's last word now
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
