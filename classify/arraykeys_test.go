package classify

import (
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestUnsetKey(t *testing.T) {
	for _, tc := range []struct {
		old      varVal
		idx      string
		assoc    bool
		wantArr  []string
		wantKeys []string
		ok       bool
	}{
		{varVal{arr: []string{"/", "x"}, known: true}, "-1", false, []string{"/"}, nil, true},
		{varVal{arr: []string{"/", "x"}, known: true}, "0", false, []string{"x"}, []string{"1"}, true},
		{varVal{arr: []string{"/", "x", "y"}, known: true}, "1", false, []string{"/", "y"}, []string{"0", "2"}, true},
		{varVal{arr: []string{"a", "b"}, keys: []string{"3", "7"}, known: true}, "-1", false, []string{"a"}, []string{"3"}, true},
		{varVal{arr: []string{"a"}, known: true}, "-5", false, nil, nil, false},
		{varVal{arr: []string{"a"}, known: true}, "i", false, nil, nil, false},
		{varVal{arr: []string{"a", "b"}, keys: []string{keyUnknown, "1"}, known: true}, "0", false, nil, nil, false},
		{varVal{arr: []string{"v", "w"}, keys: []string{"k", "a b"}, known: true}, "'a b'", true, []string{"v"}, []string{"k"}, true},
		{varVal{arr: []string{"v"}, keys: []string{"k"}, known: true}, "$k", true, nil, nil, false},
		{varVal{}, "0", false, nil, nil, false},
	} {
		got, ok := unsetKey(tc.old, tc.idx, tc.assoc)
		if ok != tc.ok || ok && (!slices.Equal(got.arr, tc.wantArr) || !slices.Equal(got.keys, tc.wantKeys)) {
			t.Errorf("unsetKey(%v, %q) = %v %v %v, want %v %v %v", tc.old.arr, tc.idx, got.arr, got.keys, ok, tc.wantArr, tc.wantKeys, tc.ok)
		}
	}
}

func TestLiteralKey(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"k", "k", true},
		{"'k'", "k", true},
		{`"k"`, "k", true},
		{"'a b'", "a b", true},
		{`a\ b`, "a b", true},
		{`k\'q`, "k'q", true},
		{`"k'q"`, "k'q", true},
		{`"a\"b"`, `a"b`, true},
		{"$k", "", false},
		{`"$k"`, "", false},
		{"'$k'", "$k", true},
		{"`x`", "", false},
		{"'open", "", false},
	} {
		got, ok := literalKey(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("literalKey(%q) = %q %v, want %q %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestQuotedKeyIndex(t *testing.T) {
	for _, tc := range []struct {
		idx, want string
		ok        bool
	}{
		{`k`, "k", true},
		{`'k'`, "k", true},
		{`"a b"`, "a b", true},
		{`k'q'`, "kq", true},
		{`"$k"`, "", false},
		{`$'k'`, "", false},
	} {
		p, err := syntax.NewParser().Parse(strings.NewReader("echo ${m["+tc.idx+"]}"), "")
		if err != nil {
			t.Fatal(err)
		}
		var pe *syntax.ParamExp
		syntax.Walk(p, func(n syntax.Node) bool {
			if x, ok := n.(*syntax.ParamExp); ok && pe == nil {
				pe = x
			}
			return true
		})
		a := &analyzer{src: "echo ${m[" + tc.idx + "]}"}
		got, ok := a.indexValue("m", pe.Index)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("indexValue(%s) = %q %v, want %q %v", tc.idx, got, ok, tc.want, tc.ok)
		}
	}
}
