package classify

import (
	"slices"
	"testing"
)

// TestParamReadVerdicts: reads through namerefs and ${!X}, the @E and @P
// transforms, negative indices and associative arrays' keys reach the
// value bash reads; everyday forms stay as they were.
func TestParamReadVerdicts(t *testing.T) {
	rt20Check(t, []rt20Case{
		// namerefs and indirection
		{`declare -n r=HOME; cat "$r/.ssh/id_rsa"`, Escalated, true},
		{`X=Y; Y=/; rm -rf "${!X}"`, Forbidden, true},
		{`X=Y; Y=~/.ssh/id_rsa; cat "${!X%.pub}"`, Escalated, true},
		{`Z=Y; declare -n Y=W; W=~/.ssh/id_rsa; cat "${!Z}"`, Escalated, true},
		{`declare -n X=Y; Y=README.md; echo "${!X}" "$X"`, Allow, true},
		{`X=Y; Y=README.md; cat "${!X}"`, Allow, true},
		{`a=(x y); echo "${!a[@]}"`, Allow, true},
		{`X=Y; Y=(README.md ~/.ssh/id_rsa); echo "${!X}"`, Allow, true},
		{`f() { local -n out=$1; out=/; }; f v; rm -rf "$v"`, Forbidden, true},
		// @E and @P
		{`X=$'/home/u/.ssh/id\x5frsa'; cat "${X@E}"`, Allow, false},
		{`X='\x2f'; rm -rf "${X@E}"`, Forbidden, true},
		{`X='\w'; rm -rf "${X@P}"`, Escalated, false},
		{`X='$(rm -rf /)'; echo "${X@P}"`, Forbidden, true},
		{`p='+ '; echo "${p@P}"`, Allow, true},
		{`msg='a\tb'; printf '%s\n' "${msg@E}"`, Allow, true},
		// negative indices and keys
		{`a=(x /); rm -rf "${a[-1]}"`, Forbidden, true},
		{`a=(/ x); rm -rf "${a[-1]}"`, Sandboxed, true},
		{`a=([3]=/ [1]=x); rm -rf "${a[-1]}"`, Forbidden, true},
		{`a=([3]=x [1]=/); rm -rf "${a[1]}"`, Forbidden, true},
		{`a=([$i]=/ [1]=x); rm -rf "${a[1]}"`, Sandboxed, true}, // [1]=x comes last
		{`a=([1]=x [$i]=/); rm -rf "${a[1]}"`, Escalated, true},
		{`a=(x); a+=(/); rm -rf "${a[-1]}"`, Forbidden, true},
		{`a=([2]=x); a+=(/); rm -rf "${a[3]}"`, Forbidden, true},
		{`a=(x); a[5]=/; rm -rf "${a[-1]}"`, Forbidden, true},
		{`declare -A m=([src]=build [dst]=/); rm -rf "${m[dst]}"`, Forbidden, true},
		{`declare -A m=([src]=build [dst]=/); rm -rf "${m[src]}"`, Sandboxed, true},
		{`declare -A m; m[out]=dist; m[out]=/; rm -rf "${m[out]}"`, Forbidden, true},
		{`declare -A m=([a]=1); m+=([k]=/); rm -rf "${m[k]}"`, Forbidden, true},
		{`declare -A m=([k]=README.md); cat "${m[k]}"; echo "${!m[@]}"`, Allow, true},
	})
}

// TestPickKeyed: the element a subscript names in an array with keys.
func TestPickKeyed(t *testing.T) {
	for _, tc := range []struct {
		arr, keys []string
		idx       string
		want      []string
		ok        bool
	}{
		{[]string{"x", "y"}, []string{"3", "1"}, "1", []string{"y"}, true},
		{[]string{"x", "y"}, []string{"3", "1"}, "-1", []string{"x"}, true},
		{[]string{"x", "y"}, []string{"3", "1"}, "-3", []string{"y"}, true},
		{[]string{"x", "y"}, []string{"3", "1"}, "2", nil, false},
		{[]string{"x", "y"}, []string{"k", "k"}, "k", []string{"y"}, true},
		{[]string{"x", "y"}, []string{"k", keyUnknown}, "k", nil, false},
		{[]string{"x", "y"}, []string{keyUnknown, "k"}, "k", []string{"y"}, true},
		{[]string{"x", "y"}, []string{keyUnknown, "1"}, "-1", nil, false},
		{[]string{"x", "y"}, []string{"-1", "1"}, "-1", []string{"x"}, true},
		{[]string{"x"}, []string{"0", "1"}, "0", nil, false}, // mismatched: never indexed
	} {
		got, ok := pickKeyed(tc.arr, tc.keys, tc.idx)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("pickKeyed(%q, %q, %q) = %q %v, want %q %v", tc.arr, tc.keys, tc.idx, got, ok, tc.want, tc.ok)
		}
	}
}

// TestKeyTrack: the keys of an array literal's elements.
func TestKeyTrack(t *testing.T) {
	type el struct {
		idx     string
		ok, sub bool
	}
	for _, tc := range []struct {
		assoc bool
		start int
		els   []el
		want  []string
	}{
		{false, 0, []el{{"", false, false}, {"", false, false}}, nil},
		{false, 0, []el{{"3", true, true}, {"", false, false}}, []string{"3", "4"}},
		{false, 0, []el{{"", false, true}, {"", false, false}}, []string{keyUnknown, keyUnknown}},
		{false, 0, []el{{"-1", true, true}}, []string{keyUnknown}},
		{false, 2, []el{{"", false, false}}, []string{"2"}},
		{true, 0, []el{{"k", true, true}, {"", false, true}}, []string{"k", keyUnknown}},
		{true, 0, []el{{"", false, false}}, []string{keyUnknown}},
	} {
		k := keyTrack{assoc: tc.assoc, next: tc.start, keyed: tc.start != 0}
		for _, e := range tc.els {
			k.add(e.idx, e.ok, e.sub)
		}
		if got := k.result(); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: keys %q, want %q", tc, got, tc.want)
		}
	}
}

func TestElemTarget(t *testing.T) {
	for _, tc := range []struct {
		in, arr, sub string
		ok           bool
	}{
		{"a[1]", "a", "1", true},
		{"a[-1]", "a", "-1", true},
		{"m[a b]", "m", "a b", true},
		{"a[@]", "", "", false},
		{"a[*]", "", "", false},
		{"a[]", "", "", false},
		{"a", "", "", false},
		{"[1]", "", "", false},
		{"1a[1]", "", "", false},
	} {
		arr, sub, ok := elemTarget(tc.in)
		if arr != tc.arr || sub != tc.sub || ok != tc.ok {
			t.Errorf("elemTarget(%q) = %q %q %v, want %q %q %v", tc.in, arr, sub, ok, tc.arr, tc.sub, tc.ok)
		}
	}
}

func TestJoinNames(t *testing.T) {
	name := func(s string) varVal { return varVal{val: s, known: true} }
	for _, tc := range []struct {
		v, w varVal
		want []string
	}{
		{name("B"), name("A"), []string{"A", "B"}},
		{varVal{item: true, names: []string{"A", "B"}}, name("C"), []string{"A", "B", "C"}},
		{varVal{item: true, names: []string{"A"}}, name("A"), []string{"A"}},
		{varVal{item: true}, name("A"), nil}, // a loop word: any value
		{name("a/b"), name("A"), nil},        // not a name
		{name("1x"), name("A"), nil},         // not a name
		{varVal{}, name("A"), nil},           // run-time
	} {
		if got := joinNames(tc.v, tc.w); !slices.Equal(got, tc.want) {
			t.Errorf("joinNames(%+v, %+v) = %v, want %v", tc.v, tc.w, got, tc.want)
		}
	}
}
