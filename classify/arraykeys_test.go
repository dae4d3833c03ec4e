package classify

import (
	"slices"
	"testing"
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
