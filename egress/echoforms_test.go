package egress

import (
	"strings"
	"testing"
)

func TestFormMatcher(t *testing.T) {
	const v = "a/b+c="
	tests := []struct {
		text string
		fold bool
		want string // text with each occurrence found replaced by *s
	}{
		{`x a/b+c= y`, false, `x ****** y`},
		{`{"k":"a\/b+c="}`, false, `{"k":"*******"}`},                   // PHP json_encode
		{`{"k":"a/b\u002Bc="}`, false, `{"k":"***********"}`},           // .NET
		{`{"k":"a/b\u002bc\u003d"}`, false, `{"k":"****************"}`}, // lower-case hex
		{`/x?auth=a%2Fb%2Bc%3D&y`, false, `/x?auth=************&y`},     // a URL
		{`a%2fb%2bc%3d`, false, `************`},
		{`<a href="a&#x2F;b&#43;c&equals;">`, false, `<a href="**********************">`},
		{`a&sol;b&plus;c&#0000061;`, false, `************************`},
		{`'a\x2fb+c='`, false, `'*********'`},
		{`A/B+C=`, false, `A/B+C=`}, // case counts in a body
		{`A/B+C=`, true, `******`},  // not in a header name
		{`a/b+c`, false, `a/b+c`},   // a prefix is not the value
		{`a%2Gb+c=`, false, `a%2Gb+c=`},
		{`a&#x2F b+c=`, false, `a&#x2F b+c=`}, // a reference needs its ;
		{`a/b+c=a/b+c=`, false, `************`},
	}
	for _, tt := range tests {
		b := []byte(tt.text)
		newFormMatcher([]byte(v), tt.fold).each(b, func(i, j int) {
			for k := i; k < j; k++ {
				b[k] = '*'
			}
		})
		if string(b) != tt.want {
			t.Errorf("%q (fold %v): %q, want %q", tt.text, tt.fold, b, tt.want)
		}
	}
	// Round 52: + for a space, JSON's short escapes, code points.
	for _, tt := range []struct {
		v, text string
		want    int // bytes matched
	}{
		{"a b", "x=a+b&", 3},
		{"a\tb", `"a\tb"`, 4},
		{"Grüße", `Gr\u00fc\u00dfe`, 15},
		{"Grüße", `Gr&#252;&#xDF;e`, 15},
		{"Grüße", `Gr%C3%BC%c3%9fe`, 15},
		{"x😀", `x\ud83d\ude00`, 13},
		{"x😀", `x&#128512;`, 10},
		{"x😀", `x\ud83d`, 0}, // half a pair
	} {
		n := 0
		newFormMatcher([]byte(tt.v), false).each([]byte(tt.text), func(i, j int) { n = j - i })
		if n != tt.want {
			t.Errorf("value %q in %q: %d bytes matched, want %d", tt.v, tt.text, n, tt.want)
		}
	}
	// A value of escape characters: every reading is followed.
	for _, text := range []string{`%%\&`, `%25%\\&amp;`, `\u0025\x25%5c&#38;`} {
		b := []byte(text)
		n := 0
		newFormMatcher([]byte(`%%\&`), false).each(b, func(i, j int) { n += j - i })
		if n != len(text) {
			t.Errorf("%q: %d bytes matched, want all %d", text, n, len(text))
		}
	}
	// Within formSpan.
	long := strings.Repeat("&#x0000002F;", 3)
	if len(long) > formSpan(3) {
		t.Errorf("three bytes' forms take %d bytes, past formSpan(3) = %d", len(long), formSpan(3))
	}
}
