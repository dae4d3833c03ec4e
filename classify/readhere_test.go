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

// TestReadCount: read -n/-N keep at most that many characters.
func TestReadCount(t *testing.T) {
	for _, tc := range []struct {
		text string
		opts map[byte]string
		want string
		ok   bool
	}{
		{"/root/.ssh/id_rsa\n", map[byte]string{'n': "5"}, "/root", true},
		{"/root/.ssh/id_rsa\n", map[byte]string{'n': "100"}, "/root/.ssh/id_rsa", true},
		{"é/x\n", map[byte]string{'N': "2"}, "é/", true},
		{"ab\n", map[byte]string{'n': "0"}, "", true},
		{"ab\n", map[byte]string{'n': "x"}, "", false},
		{"ab\n", map[byte]string{}, "ab", true},
	} {
		got, esc, ok := readCount(tc.text, '\n', tc.opts)
		if got != tc.want || ok != tc.ok || ok && len(esc) != len(got) {
			t.Errorf("readCount(%q, %v) = %q %v, want %q %v", tc.text, tc.opts, got, ok, tc.want, tc.ok)
		}
	}
}

// TestReadHereOptions: -u N reads what N is fed, -n/-N a prefix, mapfile
// -O moves the elements, other options keep the text as a possible value.
func TestReadHereOptions(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`read -N 30 f <<< /root/.ssh/id_rsa; cat "$f"`, Escalated, false},
		{"read -u 3 f 3<<EOF\n/root/.ssh/id_rsa\nEOF\ncat $f", Escalated, false},
		{`mapfile -u 3 -t a 3<<< /root/.ssh/id_rsa; cat "${a[0]}"`, Escalated, false},
		{`mapfile -O 2 -t a <<< /root/.ssh/id_rsa; cat "${a[2]}"`, Escalated, false},
		{`mapfile -O 5000 -t a <<< /root/.ssh/id_rsa; cat "${a[5000]}"`, Escalated, false},
		{`mapfile -t -c 1 -C : a <<< /root/.ssh/id_rsa; cat "${a[0]}"`, Escalated, false},
		{`read -n 5 f <<< /root/.ssh/id_rsa; ls "$f"`, Allow, true},
		{`read -u 4 f 3<<< /root/.ssh/id_rsa; cat "$f"`, Allow, true},
		{`mapfile -O 1 -t a <<< README.md; cat "${a[1]}"`, Allow, true},
	})
}
