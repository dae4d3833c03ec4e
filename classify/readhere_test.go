package classify

import (
	"slices"
	"testing"
)

// TestIfsSplit: read's field splitting, checked against bash 5.
func TestIfsSplit(t *testing.T) {
	for _, tc := range []struct {
		line, ifs string
		n         int
		want      []string
	}{
		{"  a  b  c ", " \t\n", 0, []string{"a", "b", "c"}},
		{"  a  b  c ", " \t\n", 2, []string{"a", "b  c"}},
		{"a b", " \t\n", 3, []string{"a", "b"}},
		{"x:/root/.ssh/id_rsa", ":", 0, []string{"x", "/root/.ssh/id_rsa"}},
		{":a::b:", ":", 0, []string{"", "a", "", "b"}},
		{"a : b", " :", 0, []string{"a", "b"}},
		{" a b ", "\x00", 1, []string{" a b "}},
		{"", " \t\n", 0, nil},
	} {
		esc := make([]bool, len(tc.line))
		if got := ifsSplit(tc.line, esc, tc.ifs, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("ifsSplit(%q, %q, %d) = %q, want %q", tc.line, tc.ifs, tc.n, got, tc.want)
		}
	}
}

// TestReadLine: backslashes without -r, the delimiter.
func TestReadLine(t *testing.T) {
	for _, tc := range []struct {
		text  string
		delim byte
		raw   bool
		want  string
		split []string
	}{
		{"a\\ b c\nd\n", '\n', false, "a b c", []string{"a b", "c"}},
		{"a\\ b c\nd\n", '\n', true, "a\\ b c", []string{"a\\", "b", "c"}},
		{"a\\\nb\n", '\n', false, "ab", []string{"ab"}},
		{"a b\nc\n", 0, true, "a b\nc\n", []string{"a", "b", "c"}},
		{"a:b\n", ':', true, "a", []string{"a"}},
	} {
		got, esc := readLine(tc.text, tc.delim, tc.raw)
		if split := ifsSplit(got, esc, " \t\n", 0); got != tc.want || !slices.Equal(split, tc.split) {
			t.Errorf("readLine(%q, %q, %v) = %q split %q, want %q split %q", tc.text, tc.delim, tc.raw, got, split, tc.want, tc.split)
		}
	}
}

// TestReadHereVerdicts: what read/mapfile take from a known here-string
// is followed into later commands.
func TestReadHereVerdicts(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`read <<< "$HOME/.ssh/id_rsa"; cat "$REPLY"`, Escalated, false},
		{`read -d '' -a a <<< "x $HOME/.ssh/id_rsa"; cat "${a[1]}"`, Escalated, false},
		{`IFS=: read x y <<< "a:$HOME/.ssh/id_rsa"; cat "$y"`, Escalated, false},
		{`read x y <<< "$HOME/.ssh/id_rsa b"; cat "$x"`, Escalated, false},
		{`mapfile <<< "$HOME/.ssh/id_rsa"; cat "${MAPFILE[0]}"`, Escalated, false},
		{`mapfile -t -s 1 a <<< "x
$HOME/.ssh/id_rsa"; cat "${a[0]}"`, Escalated, false},
		{`read -r -a a <<< "a\ $HOME/.ssh/id_rsa"; cat "${a[1]}"`, Escalated, false},
		{`IFS=$X read y <<< "$HOME/.ssh/id_rsa"; cat $y`, Escalated, false},
		{`read HOME <<< /; rm -rf ~`, Forbidden, false},

		{`read x y <<< "a b"; echo "$x $y"`, Allow, true},
		{`mapfile -t a <<< "x"; echo "${a[@]}"`, Allow, true},
		{`IFS=, read -ra parts <<< "a,b"; echo "${parts[1]}"`, Allow, true},
	})
}
