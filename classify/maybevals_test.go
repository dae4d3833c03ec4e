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
		many = append(many, "a"+itoa(i)+"$")
	}
	many = append(many, "b")
	got := boundMaybe(many)
	if len(got) != maxMaybe || !strings.Contains(got[maxMaybe-1], "b") {
		t.Errorf("boundMaybe: %d texts, last %q; want %d, the rest joined (b kept)", len(got), got[maxMaybe-1], maxMaybe)
	}
	long := slices.Clone(many)
	for i := range maxMaybe {
		long = append(long, strings.Repeat("c", maxValue/maxMaybe)+itoa(i))
	}
	if got := boundMaybe(long); got[maxMaybe-1] != maybeMany {
		t.Errorf("boundMaybe past maxValue: last %.20q, want maybeMany", got[maxMaybe-1])
	}
}

func TestParamRefs(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"$v", []string{"v"}},
		{"a${v}b$_", []string{"v", "_"}},
		{"${!p}", []string{"!p"}},
		{"${v:-x} $1 $12 $ x$", []string{"1"}},
	} {
		var got []string
		for _, r := range paramRefs(tc.text) {
			n := r.name
			if r.indirect {
				n = "!" + n
			}
			got = append(got, n)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("paramRefs(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// A maybe value used as a name or as arithmetic through a word ($v,
// ${!v}, printf -v "$v", $(printf "$F" …)) is followed as its texts are
// in $((v)); everyday uses stay allowed.
func TestMaybeNameVerdicts(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`[ -d / ] && v=HOME; [[ -v $v ]] && echo ${!v}`, Allow},
		{`getopts v: o -v name; printf -v "$OPTARG" %s x`, Allow},
		{`if [ -d / ]; then v=n; fi; read "$v" </dev/null`, Allow},
		{`[ -d / ] && v='x[$(rm -rf /)]'; echo $(($v))`, Forbidden},
		{`[ -d / ] && v='x[$(rm -rf /)]'; unset "$v"`, Forbidden},
		{`[ -d / ] && v='x[$(rm -rf /)]'; declare "$v=1"`, Forbidden},
		{`[ -d / ] && v=n; declare "$v=1" "$o"`, Allow},
		{`echo $(( $(echo 'x[$(rm -rf /)]') ))`, Forbidden},
		{`echo $(( $(wc -l < /etc/passwd) + 1 ))`, Allow},
		{`printf -v n "%${W}d" 5; echo $((n+1))`, Allow},
		{`printf -v n "$F" 'x[$(rm -rf /)]'; echo $((n))`, Forbidden},
		{`for w in a b; do :; done; w=3; echo $((w))`, Allow},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
