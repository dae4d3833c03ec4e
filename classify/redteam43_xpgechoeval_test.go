package classify

import "testing"

// TestRedteam43XpgEchoEval: shopt -s xpg_echo makes bash's echo read
// backslash escapes without -e (as dash's echo does). The classifier
// folds $(echo …) without escapes whatever the shell options, so in
// shopt -s xpg_echo; eval "$(echo 'echo a\nrm -rf ~')" it evaluates one
// echo, while bash evaluates two lines and runs rm -rf ~. Verdict:
// sandboxed. Found by red-team round 43 (medium: needs an explicit shopt
// on the line). Fixed with TestRedteam43XpgEcho.
func TestRedteam43XpgEchoEval(t *testing.T) {
	rt43bCheck(t, "bash", []string{
		"shopt -s xpg_echo; eval \"$(echo 'echo a\\nCMD')\"",
		"shopt -s xpg_echo\nx=$(echo 'echo a\\nCMD')\neval \"$x\"",
	}, Forbidden)
	// Control: without xpg_echo the echo output is one echo line, and
	// bash runs nothing else: the classifier need not flag it.
	if r := Default().ClassifyShell("bash", `eval "$(echo 'echo a; rm -rf ~')"`); r.Decision < Forbidden {
		t.Errorf("control: eval of echoed rm = %s", r.Decision)
	}
}
