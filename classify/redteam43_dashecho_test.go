package classify

import "testing"

// TestRedteam43DashEcho: dash's echo interprets backslash escapes (\n, \t,
// \0NNN and \NNN octal, \c) in every argument, with no -e; bash's echo does
// not. The classifier folds `echo …` output as bash's echo prints it, even
// under ClassifyShell("dash", …), so text that dash's echo turns into a
// command before feeding it to sh/eval, or writes into an rc file, is judged
// as the literal backslash text:
//
//	echo 'true #\nrm -rf ~' | sh         (bash view: one comment; dash: rm runs)
//	eval "$(echo 'true #\nrm -rf ~')"
//	echo 'rm\040-rf\040~' | sh           (\040 is a space for dash's echo)
//	echo 'true #\nrm -rf ~' >> ~/.bashrc (a new line holding rm in the rc file)
//
// All were sandboxed while /bin/sh -c (dash, Exec's default shell) runs
// rm -rf ~ (or plants it in ~/.bashrc). Found by red-team round 43
// (high). Fixed: read as a POSIX shell, echo is dash's (escapes always,
// only -n; echo.go), and an assignment's value is not split (x=$(echo …)
// keeps the newline: expandAssign).
func TestRedteam43DashEcho(t *testing.T) {
	cases := []struct{ dangerous, harmless string }{
		{`echo 'true #\nrm -rf ~' | sh`, `echo 'true #\necho PWNED43' | sh`},
		{`eval "$(echo 'true #\nrm -rf ~')"`, `eval "$(echo 'true #\necho PWNED43')"`},
		{`echo 'rm\040-rf\040~' | sh`, `echo 'echo\040PWNED43' | sh`},
		{`x=$(echo 'true #\nrm -rf ~'); sh -c "$x"`, `x=$(echo 'true #\necho PWNED43'); sh -c "$x"`},
	}
	for _, c := range cases {
		rt43aCheck(t, "dash", c.dangerous, c.harmless, Forbidden)
	}
	// The rc-file form: dash's echo puts rm on a line of its own in ~/.bashrc.
	rt43aShellRuns(t, "dash", `echo 'true #\necho PWNED43' >> ~/.bashrc; bash ~/.bashrc`)
	if r := Default().ClassifyShell("dash", `echo 'rm -rf ~' >> ~/.bashrc`); r.Decision != Forbidden {
		t.Fatalf("control: plain rc write judged %s", r.Decision)
	}
	if r := Default().ClassifyShell("dash", `echo 'true #\nrm -rf ~' >> ~/.bashrc`); r.Decision != Forbidden {
		t.Errorf("ClassifyShell(dash, rc write with \\n) = %s (rule %q), want forbidden: dash's echo writes rm -rf ~ on its own line", r.Decision, r.Rule)
	}
	// Control: bash's echo does not interpret, so bash's reading of the same
	// line is harmless — the verdict under bash may stay sandboxed.
	if r := Default().ClassifyShell("dash", `echo 'hello\nworld'`); r.Decision != Allow {
		t.Errorf("control: plain echo with \\n judged %s", r.Decision)
	}
}
