package classify

import "testing"

// TestRedteam43XpgEcho: bash's `shopt -s xpg_echo` (or `bash -O xpg_echo`)
// makes its echo interpret backslash escapes as dash's does, with no -e.
// The classifier keeps folding `echo` output literally after it, so
//
//	shopt -s xpg_echo; echo 'true #\nrm -rf ~' | bash
//	shopt -s xpg_echo; eval "$(echo 'rm\040-rf\040~')"
//	bash -O xpg_echo -c "echo 'true #\\nrm -rf ~' | bash"
//
// were sandboxed under ClassifyShell("bash", …) while bash runs rm -rf ~.
// Found by red-team round 43 (high). Fixed: xpg_echo is tracked as
// lastpipe is (shopt, bash -O), and where it may be on echo's output is
// judged both ways (echo.go).
func TestRedteam43XpgEcho(t *testing.T) {
	cases := []struct{ dangerous, harmless string }{
		{`shopt -s xpg_echo; echo 'true #\nrm -rf ~' | bash`, `shopt -s xpg_echo; echo 'true #\necho PWNED43' | bash`},
		{`shopt -s xpg_echo; eval "$(echo 'rm\040-rf\040~')"`, `shopt -s xpg_echo; eval "$(echo 'echo\040PWNED43')"`},
		{`bash -O xpg_echo -c "echo 'true #\\nrm -rf ~' | bash"`, `bash -O xpg_echo -c "echo 'true #\\necho PWNED43' | bash"`},
	}
	for _, c := range cases {
		rt43aCheck(t, "bash", c.dangerous, c.harmless, Forbidden)
	}
	// Control: without xpg_echo bash's echo prints the backslashes and the
	// piped text is one comment; the classifier may keep that sandboxed.
	if r := Default().ClassifyShell("bash", `echo 'rm -rf ~' | bash`); r.Decision != Forbidden {
		t.Errorf("control: plain echo | bash judged %s", r.Decision)
	}
}
