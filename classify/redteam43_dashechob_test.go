package classify

import "testing"

// TestRedteam43DashEchoEscapes: text made by dash's echo and printf, then
// run (eval, sh -c, a variable later eval'ed). dash's echo always reads
// backslash escapes (\n, \c, \0NNN octal; it has no -e/-E), and dash's
// printf keeps \' and \" in FORMAT as two characters, where bash's echo
// prints them as typed and bash's printf drops the backslash. The
// classifier folds $(echo …) and $(printf …) as bash computes them even
// when judging the line as dash reads it (ClassifyShell("dash"), what
// Exec runs by default): eval "$(echo 'echo a\nrm -rf ~')" is one echo to
// it, while dash evaluates two lines and runs rm -rf ~; eval "$(printf
// 'echo \" ; rm -rf ~ ; echo \"')" is one echo of a quoted string to it,
// while dash evaluates echo \" ; rm -rf ~ ; echo \". Verdict: sandboxed.
// Found by red-team round 43 (high: /bin/sh is dash by default). Fixed:
// read as a POSIX shell, echo is dash's (echo.go) and printf's FORMAT
// keeps the backslash of \' and \" (dashQuoteEscapes).
func TestRedteam43DashEchoEscapes(t *testing.T) {
	rt43bCheck(t, "dash", []string{
		`eval "$(echo 'echo a\nCMD')"`,
		`eval "$(echo 'echo a\0073 CMD')"`,
		`x=$(echo 'echo a\nCMD'); eval "$x"`,
		`eval "$(echo -- 'echo a\nCMD')"`,
		`sh -c "$(echo 'echo a\nCMD')"`,
		`eval "$(printf 'echo \" ; CMD ; echo \"')"`,
		`eval "$(printf "echo \\' ; CMD ; echo \\'")"`,
	}, Forbidden)
	// Control: the same text folded without escapes is caught.
	if r := Default().ClassifyShell("dash", `eval "$(echo 'echo a; rm -rf ~')"`); r.Decision < Forbidden {
		t.Errorf("control: eval of echoed rm = %s", r.Decision)
	}
}
