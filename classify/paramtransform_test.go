package classify

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestTransformValues: trims, replacements, slices and case changes of a
// known value, checked against bash 5.
func TestTransformValues(t *testing.T) {
	for _, tc := range []struct {
		val, expr, want string
		ok              bool
	}{
		{"/root/.ssh/id_rsa.pub", "${X%.pub}", "/root/.ssh/id_rsa", true},
		{"a.b.c", "${X%.*}", "a.b", true},
		{"a.b.c", "${X%%.*}", "a", true},
		{"a.b.c", "${X#*.}", "b.c", true},
		{"a.b.c", "${X##*.}", "c", true},
		{"/tmp/x/tmp", "${X/tmp/root}", "/root/x/tmp", true},
		{"/tmp/x/tmp", "${X//tmp/root}", "/root/x/root", true},
		{"/tmp/x/tmp", "${X/%tmp/y}", "/tmp/x/y", true},
		{"/tmp/x", `${X/#\/tmp/~}`, "~/x", true},
		{"abc", "${X/b/&&}", "", false},
		{"abc", "${X//?/x}", "xxx", true},
		{"abc", "${X//b*/}", "a", true},
		{"ab", "${X//?/ab}", "abab", true},
		{strings.Repeat("a", 256), "${X//?/" + strings.Repeat("b", 255) + "}", strings.Repeat("b", 255*256), true},
		{strings.Repeat("a", 257), "${X//?/" + strings.Repeat("b", 256) + "}", "", false}, // past maxValue: not built
		{"abc", "${X/b/$Y}", "", false},
		{"abcdef", "${X:2}", "cdef", true},
		{"abcdef", "${X::-2}", "abcd", true},
		{"abcdef", "${X: -3:2}", "de", true},
		{"abcdef", "${X:1:-6}", "", false},
		{"abcdef", "${X:9}", "", true},
		{"abcdef", "${X:$N}", "", false},
		{"/ROOT/X", "${X,,}", "/root/x", true},
		{"root", "${X^}", "Root", true},
		{"root", "${X^^}", "ROOT", true},
		{"ROOT", "${X,}", "rOOT", true},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+tc.expr), "")
		if err != nil {
			t.Fatal(err)
		}
		p := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1].Parts[0].(*syntax.ParamExp)
		var got string
		var ok bool
		switch {
		case p.Slice != nil:
			got, ok = sliceValue(tc.val, p.Slice)
		case p.Repl != nil:
			got, _, ok = newAnalyzer(Default()).replaceValue(tc.val, p.Repl)
		case isTrimOp(p.Exp.Op):
			got, ok = newAnalyzer(Default()).trimValue(tc.val, p.Exp)
		default:
			got, ok = newAnalyzer(Default()).caseValue(tc.val, p.Exp)
		}
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("%s on %q = %q %v, want %q %v", tc.expr, tc.val, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTransformVerdicts: a transform bash cannot be followed on keeps the
// untransformed value as a possible one; everyday transforms stay allowed.
func TestTransformVerdicts(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`X=~/.ssh/id_rsa; cat ${X/$Y/}`, Escalated, false},
		{`X=~/.ssh/id_rsa; cat "${X:$N}"`, Escalated, false},
		{`f=report.txt; cp "$f" "${f%.txt}.bak"`, Sandboxed, true},
		{`f=src/main.go; echo "${f##*/}" "${f%/*}"`, Allow, true},
		{`b=Feature-X; git checkout "${b,,}"`, Sandboxed, false},
	})
}

// TestCaseValues: case changes with literal patterns and bash 5.1's @L,
// @U, @u, checked against bash 5.2.
func TestCaseValues(t *testing.T) {
	for _, tc := range []struct {
		val, expr, want string
		ok              bool
	}{
		{"ABC", "${X,,[A-B]}", "abC", true},
		{"ABC", "${X,[A-B]}", "aBC", true},
		{"ABC", "${X,[B]}", "ABC", true},
		{"ABC", "${X,,*}", "abc", true},
		{"ABC", "${X,,''}", "ABC", true},
		{"ABC", "${X@L}", "abc", true},
		{"abc", "${X@U}", "ABC", true},
		{"abc", "${X@u}", "Abc", true},
		{"abc", "${X^^[ac]}", "AbC", true},
		{"abc", "${X^^ab}", "abc", true},
		{"ABC", "${X,,$p}", "", false},
		{"abc", "${X@Q}", "", false},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo "+tc.expr), "")
		if err != nil {
			t.Fatal(err)
		}
		p := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1].Parts[0].(*syntax.ParamExp)
		got, ok := newAnalyzer(Default()).caseValue(tc.val, p.Exp)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("%s on %q = %q %v, want %q %v", tc.expr, tc.val, got, ok, tc.want, tc.ok)
		}
	}
}

// TestBashInt: integer constants as bash arithmetic reads them.
func TestBashInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"4", 4, true}, {"0x4", 4, true}, {"0X1f", 31, true}, {"010", 8, true}, {"0", 0, true},
		{"10#4", 4, true}, {"36#z", 35, true}, {"36#Z", 35, true}, {"64#A", 36, true},
		{"64#@", 62, true}, {"64#_", 63, true}, {"2#101", 5, true},
		{"08", 0, false}, {"37#Z", 0, false}, {"1#1", 0, false}, {"0x", 0, false}, {"4a", 0, false},
		{"99999999999", 0, false},
	} {
		got, ok := bashInt(tc.in)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("bashInt(%q) = %d %v, want %d %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestArrayTransformVerdicts: transforms of array elements and of values
// only known at run time.
func TestArrayTransformVerdicts(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`set -- ~/.ssh/id_rsa.pub; cat "${1%.pub}"`, Escalated, false},
		{`set -- ~/.ssh/id_rsa.pub x; cat "${@%.pub}"`, Escalated, false},
		{`a=(x ~/.ssh/id_rsa.pub); cat "${a[1]%.pub}"`, Escalated, false},
		{`a=(~/.ssh/id_rsa.pub); cat "${a%.pub}"`, Escalated, false},
		{`X=~/.ssh/id_rsa.pub; cat "${X[0]%.pub}"`, Escalated, false},
		{`a=(~/.ssh/id_rsa); cat "${a[0]%$p}"`, Escalated, false},
		{`a=(${Y:-~/.ssh/id_rsa.pub}); cat "${a[0]%.pub}"`, Escalated, false},
		{`X=${Y:-~/.ssh/id_rsa.pub}; cat "${X%.pub}"`, Escalated, false},
		{`X=~/.SSH/ID_RSA; cat "${X,,$p}"`, Escalated, false},
		{`files=(a.txt b.txt); echo "${files[@]%.txt}"`, Allow, true},
		{`files=(a.txt b.txt); cp "${files[0]}" "${files[0]%.txt}.bak"`, Sandboxed, true},
		{`a=(a b c); echo "${a[@]:1}"`, Allow, true},
	})
}
