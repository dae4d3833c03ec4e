package classify

import "testing"

// TestBuiltinElems: a builtin writing an array element it names literally
// (read 'a[1]', printf -v 'm[k]') gives the element the value the line
// knows, or makes the array a run-time value; the old element never stays.
func TestBuiltinElems(t *testing.T) {
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line, want string // want: the judged command of the last step
	}{
		{`a=(x y); read 'a[1]' <<< z; rm "${a[1]}"`, "rm z"},
		{`a=(x y); read -r a[1] <<< 'p\q'; rm "${a[1]}"`, `rm p\q`},
		{`a=(x y); read a 'a[1]' <<< 'p q r'; rm "${a[@]}"`, "rm p q r"},
		{`a=(x y); read x 'a[0]' <<< 'p q'; rm "${a[0]}" "$x"`, "rm q p"},
		{`declare -A m=([k]=v); read "m['k']" <<< z; rm "${m[k]}"`, "rm z"},
		{`declare -A m; read 'm[n]' <<< z; rm "${m[n]}"`, "rm z"},
		{`a=(x y); printf -v 'a[1]' z; rm "${a[1]}"`, "rm z"},
		{`a=(x y); printf -v 'a[1]' %s z; rm "${a[1]}" "${a[0]}"`, "rm z x"},
		{`a=(x y); printf -v 'a[1+0]' z; rm "${a[1]}"`, "rm z"},
		{`a=(x y); read 'a[-1]' <<< z; rm "${a[1]}"`, "rm z"},
		{`a=(x y); read 'a[ 0]' <<< z; rm "${a[0]}"`, "rm z"},
		{`a=(x y); declare 'a[0]=z'; rm "${a[0]}"`, "rm z"},
		{`declare -n r=a; a=(x y); read 'r[1]' <<< z; rm "${a[1]}"`, "rm z"},
		{`a=(x y); printf -v 'a[1]' %d 1; rm "${a[1]}"`, "rm 1"},
		// the element, or its key, only known at run time
		{`a=(x y); printf -v 'a[1]' %x 31; rm "${a[0]}"`, "rm ${a[0]}"},
		{`a=(x y); read 'a[1]'; rm "${a[1]}"`, "rm ${a[1]}"},
		{`a=(x y); read 'a[i]' <<< z; rm "${a[1]}"`, "rm ${a[1]}"},
		{`a=(x y); mapfile 'a[1]' <<< z; rm "${a[1]}"`, "rm ${a[1]}"},
		{`a=(x y); read -a 'a[1]' <<< z; rm "${a[1]}"`, "rm ${a[1]}"},
		{`a=(x y); getopts ab 'a[1]'; rm "${a[1]}"`, "rm ${a[1]}"},
	} {
		if got := c.Classify(tc.line); got.Command != tc.want {
			t.Errorf("%q: judged %q (%s), want %q", tc.line, got.Command, got.Decision, tc.want)
		}
	}
}
