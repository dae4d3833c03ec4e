package classify

import "testing"

func TestHasShellMeta(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  bool
	}{
		{[]string{"echo", "{}"}, false},
		{[]string{"gzip", "-9"}, false},
		{[]string{"echo", ">>"}, true},
		{[]string{"rm", "$HOME"}, true},
		{[]string{"echo", "a b"}, true},
		{[]string{"ls", "*.c"}, true},
	} {
		var fs []field
		for _, w := range tc.words {
			fs = append(fs, field{val: w})
		}
		if got := hasShellMeta(fs); got != tc.want {
			t.Errorf("hasShellMeta(%q) = %v, want %v", tc.words, got, tc.want)
		}
	}
}
