package classify

import (
	"reflect"
	"testing"
)

// readDeclOpts reads declaration options as bash does: up to -- or the
// first word that is not an option; a run-time word may be any option.
func TestReadDeclOpts(t *testing.T) {
	for _, tc := range []struct {
		variant string
		words   []string
		want    declSpec
		names   int
	}{
		{"declare", []string{"-n", "r=c"}, declSpec{nameref: true}, 1},
		{"declare", []string{"-ri", "x"}, declSpec{set: attrReadonly | attrInt}, 1},
		{"declare", []string{"+i", "+r", "x"}, declSpec{unset: attrInt}, 1},
		{"local", []string{"-g", "-l", "x"}, declSpec{global: true, set: attrLower}, 1},
		{"declare", []string{"+n", "r"}, declSpec{drop: true}, 1},
		{"declare", []string{"-f", "-n", "r"}, declSpec{noVars: true}, 0},
		{"declare", []string{"-p", "x"}, declSpec{noVars: true}, 0},
		{"declare", []string{"--", "-n", "x"}, declSpec{}, 2},
		{"declare", []string{"x", "-n"}, declSpec{}, 2},
		{"declare", []string{"-Z", "x"}, declSpec{invalid: true}, 1},
		{"declare", []string{"$o", "x"}, declSpec{dyn: true, set: attrInt | attrMixed}, 1},
		{"declare", []string{"$o", "-n", "x"}, declSpec{dyn: true, nameref: true, set: attrInt | attrMixed}, 1},
		{"export", []string{"-n", "x"}, declSpec{}, 1},
		{"readonly", []string{"x"}, declSpec{set: attrReadonly}, 1},
		{"nameref", []string{"r=c"}, declSpec{nameref: true}, 1},
	} {
		got := readDeclOpts(tc.variant, lits(tc.words...))
		if len(got.names) != tc.names {
			t.Errorf("%s %q: %d names, want %d", tc.variant, tc.words, len(got.names), tc.names)
		}
		got.names = nil
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q: %+v, want %+v", tc.variant, tc.words, got, tc.want)
		}
	}
}
