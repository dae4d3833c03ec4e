package classify

import (
	"os/exec"
	"testing"
)

// printfFormatCases are FORMAT and ARGs with printf's output when
// printfFormat claims it exactly ("" with exact false: not claimed).
var printfFormatCases = []struct {
	args  []string
	want  string
	exact bool
}{
	{[]string{"%s"}, "", true},
	{[]string{"a%sb", "1", "2"}, "a1ba2b", true},
	{[]string{"%.1s", "x_", "[_", "$_"}, "x[$", true},
	{[]string{"%.0s%s", "echo ", "rm -rf /"}, "rm -rf /", true},
	{[]string{"%.s|", "abc"}, "|", true},
	{[]string{"%5s|%-5s|", "ab", "cd"}, "   ab|cd   |", true},
	{[]string{"%3.1s|", "abc"}, "  a|", true},
	{[]string{"%*s|%-*s|", "4", "a", "3", "b"}, "   a|b  |", true},
	{[]string{"%*s|", "-3", "a"}, "a  |", true},
	{[]string{"%.*s|", "2", "abc"}, "ab|", true},
	{[]string{"%.*s|", "-1", "abc"}, "abc|", true},
	{[]string{"%c%c", "xyz", "q"}, "xq", true},
	{[]string{"%3c|", "xyz"}, "  x|", true},
	{[]string{"%%%s%%", "a"}, "%a%", true},
	{[]string{`a\tb\n\x41\101\0101\'\"\?`}, "a\tb\nAA\x081'\"?", true},
	{[]string{`\c\q\u0041\x`}, `\c\qA\x`, true},
	{[]string{`%b`, `x[\0044(rm)]`}, "x[$(rm)]", true},
	{[]string{`%b|`, `\044\0057\101\x2f\'\q\`}, `$/A/\'\q\|`, true},
	{[]string{`%b|%s|`, `ab\cde`, "zz", "again"}, "ab", true},
	{[]string{`%.2b|`, `\x41\x42\x43`}, "AB|", true},
	{[]string{`%-4b|`, `\x41`}, "A   |", true},
	{[]string{"%s-", "a", "b", "c"}, "a-b-c-", true},
	{[]string{"plain", "ignored"}, "plain", true},
	{[]string{"%d|%i|%3d|%-3d|%03d|%.2d|%5.3d|%.0d|%d|", "5", "-7", "4", "4", "-4", "3", "-2", "0"}, "5|-7|  4|4  |-04|03| -002||0|", true},
	{[]string{"%05d|%-05d|%05.1d", "42", "42", "42"}, "00042|42   |   42", true},
	// number ARGs are C numbers (getintmax); junk keeps the value read so far
	{[]string{"%d|%d|%d|%d|%d|%d|", "010", "0x1f", "+3", " 3", "-010", "0X1F"}, "8|31|3|3|-8|31|", true},
	{[]string{"%d|%d|%d|%d|%d|%d|", "08", "013x", "0x", "0x1g", "-", " "}, "0|11|0|1|0|0|", true},
	{[]string{"%d|%d|%d|%d|%d|", "'a", `"b`, "'", "'ab", "\t7"}, "97|98|0|97|7|", true},
	{[]string{"/etc/shadow%.0d", "00"}, "/etc/shadow", true},
	{[]string{"%d", "'é"}, "", false},
	{[]string{"%d", "99999999999999999999"}, "", false},
	{[]string{"%+d", "3"}, "", false},
	{[]string{"%x", "5"}, "", false},
	{[]string{"%05s", "a"}, "", false},
	{[]string{"%ls", "a"}, "", false},
	{[]string{"%q", "a b"}, "", false},
	{[]string{"%.1s", "é"}, "", false},
	{[]string{`\u00e9`}, "", false},
	{[]string{`a\0b`}, "", false},
	{[]string{"%c", ""}, "", false},
	{[]string{"%"}, "", false},
	{[]string{"%*s|", "x", "a"}, "a|", true}, // x: an error read as 0
	{[]string{"%*s|%.*s|%*s|", "10", "a", "0", "abc", "-0", "b"}, "         a||b|", true},
	// * counts are C numbers too: 013 is octal 11, 08 is an error read as 0
	{[]string{"%.*s|", "013", "/etc/shadowXY"}, "/etc/shadow|", true},
	{[]string{"%*.*s|", "0", "013", "/etc/shadowXY"}, "/etc/shadow|", true},
	{[]string{"%.*s|%.*s|%.*s|%.*s|", "010", "/home/u/ab", "08", "abc", "00", "abc", "013x", "abcdefghijklm"}, "/home/u/|||abcdefghijk|", true},
	{[]string{"%.*s|%.*s|%.*s|%.*s|", "0x3", "abcdef", " 3", "abcdef", "+3", "abcdef", "'", "abc"}, "abc|abc|abc||", true},
	{[]string{"%*s|%*s|", "-010", "a", "0x", "b"}, "a       |b|", true},
	{[]string{"%.*s", "'a", "abc"}, "abc", true}, // 97
	{[]string{"%.*s", "99999999999999999999", "abc"}, "", false},
	{[]string{"%d|%d", "0", "-0"}, "0|0", true},
}

func TestPrintfFormat(t *testing.T) {
	bash, _ := exec.LookPath("bash")
	for _, c := range printfFormatCases {
		got, exact := printfFormat(c.args[0], c.args[1:])
		if exact != c.exact || exact && got != c.want {
			t.Errorf("printf %q: %q exact=%v, want %q exact=%v", c.args, got, exact, c.want, c.exact)
		}
		if bash == "" || !exact {
			continue
		}
		for _, script := range []string{`printf -- "$@"`, `printf -v v -- "$@"; printf %s "$v"`} {
			cmd := exec.Command(bash, append([]string{"-c", script, "bash"}, c.args...)...)
			cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
			out, _ := cmd.Output()
			if string(out) != got {
				t.Errorf("%s %q: bash wrote %q, printfFormat %q", script, c.args, out, got)
			}
		}
	}
}
