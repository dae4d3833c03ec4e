package classify

import (
	"slices"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// parseParam parses one ${…} for the tests below.
func parseParam(t *testing.T, src string) *syntax.ParamExp {
	t.Helper()
	refs := braceRefs(src)
	if len(refs) != 1 {
		t.Fatalf("%q: %d refs", src, len(refs))
	}
	return refs[0].p
}

func TestOpTexts(t *testing.T) {
	for _, tc := range []struct {
		src  string
		has  []string // texts the result must hold
		many bool     // whether it must hold maybeMany
	}{
		{src: `${v}`, has: []string{"ab"}},
		{src: `${v[1]}`, has: []string{"ab"}},
		{src: `${v:1}`, has: []string{"ab", "b"}},
		{src: `${v#a}`, has: []string{"b"}},
		{src: `${v%b}`, has: []string{"a"}},
		{src: `${v^^}`, has: []string{"AB", "Ab"}},
		{src: `${v@U}`, has: []string{"AB"}},
		{src: `${v/a/c}`, has: []string{"cb"}},
		{src: `${v//a/}`, has: []string{"b"}},
		{src: `${v/#a/x}`, has: []string{"xb"}},
		{src: `${v/a*/c}`, many: true},
		{src: `${v^^[a]}`, many: true},
		{src: `${v@E}`, many: true},
		{src: `${v:-cd}`, has: []string{"ab", "cd"}},
		{src: `${v/%b/x}`, has: []string{"ax"}},
		{src: `${v/#b/x}`, has: []string{"ab"}},
	} {
		got := opTexts(parseParam(t, tc.src), []string{"ab"})
		for _, w := range tc.has {
			if !slices.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.src, got, w)
			}
		}
		if slices.Contains(got, maybeMany) != tc.many {
			t.Errorf("%s: %q, maybeMany want %v", tc.src, got, tc.many)
		}
	}
}

func TestBraceRefs(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string // each ref's source
	}{
		{`x${a}y`, []string{"${a}"}},
		{`${a:-${b}}z${c#\}}`, []string{"${a:-${b}}", `${c#\}}`}},
		{`$a ${`, nil},
		{`${!p@}/${BASH_REMATCH[1]}`, []string{"${!p@}", "${BASH_REMATCH[1]}"}},
	} {
		var got []string
		for _, r := range braceRefs(tc.text) {
			got = append(got, tc.text[r.start:r.end])
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestMaybeParamEveryday: lines that copy a run-time value through an
// operator, a subscript or a loop stay allowed.
func TestMaybeParamEveryday(t *testing.T) {
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`for f in *.go; do wc -l "$f"; done`,
		`[[ $x =~ ^v([0-9]+) ]] && echo ${BASH_REMATCH[1]}`,
		`[[ v12 =~ ^v([0-9]+) ]] && n=${BASH_REMATCH[1]}; echo $((n + 1))`,
		`while getopts ab: o; do case $o in b) echo "$OPTARG";; esac; done`,
		`getopts n: o -n 5; n=${OPTARG:-1}; echo $((n * 2))`,
		`for v in a b; do echo ${v^^}; done`,
		`for d in src lib; do for f in "$d"/*.go; do echo "${f%.go}"; done; done`,
		`x=1; y=2; echo ${!x*}`,
		`hosts=1; cat /etc/${!hosts@}`,
		`[[ ab =~ a(b) ]]; arr=("${BASH_REMATCH[@]}"); echo "${arr[1]}"`,
	} {
		if got := c.Classify(line); got.Decision != Allow {
			t.Errorf("%q: %s (%s), want allow", line, got.Decision, got.Rule)
		}
	}
}

// TestMaybeParamDefaultWord: a default's word carries its own
// parameters' texts (${x:-$OPTARG} may be OPTARG's).
func TestMaybeParamDefaultWord(t *testing.T) {
	rt30eJudge(t, `b=1; getopts a: o -ab; v=${x:-$OPTARG}; echo $((v))`, []string{
		`b='z[$(CMD)]'; getopts a: o -ab; v=${x:-$OPTARG}; echo $((v))`,
		`b='z[$(CMD)]'; getopts a: o -ab; v=${x:-${OPTARG#x}}; echo $((v))`,
		`b='z[$(CMD)]'; [[ ab =~ a(b) ]]; v=("${BASH_REMATCH[@]}"); v+=(c); echo $((v[1]))`,
		`b='z[$(CMD)]'; getopts a: o -ab; printf -v v 'x%s' "$OPTARG"; echo $((${v#x}))`,
		`b='z[$(CMD)]'; getopts a: o -ab; v=${OPTARG/#a/}; echo $((v))`,
		`bc='z[$(CMD)]'; getopts a: o -ab; v=${OPTARG}c; echo $((v))`,
		`bc='z[$(CMD)]'; getopts a: o -ab; v=${OPTARG:0}c; echo $((v))`,
	})
}
