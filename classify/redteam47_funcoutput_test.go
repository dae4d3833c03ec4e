package classify

import "testing"

// TestRedteam47FuncOutput: the output of a call to a function the line
// defines is not the text its body prints:
//
//	f() { echo 'rm -rf ~/.ssh'; }; f >> ~/.bashrc           sandboxed
//	f() { echo 'rm -rf ~/.ssh'; }; f | tee -a ~/.bashrc     sandboxed
//	f() { echo 'rm -rf ~'; }; f | sh                        escalated
//
// The first two put `rm -rf ~/.ssh` into ~/.bashrc (run by the next
// interactive shell); the third runs `rm -rf ~`. The same text written by
// a group, `{ echo 'rm -rf ~/.ssh'; } >> ~/.bashrc`, or piped by echo
// itself, `echo 'rm -rf ~' | sh`, is forbidden. A call to a defined
// function walks its body (funcs.go) for the commands it runs, but the
// stream the call produces is that of an unknown program (produce.go:
// produce has no case for a function call, so trUnknown), so writeText
// (call.go) has no known text to judge as the rc file's and the shell
// reading the pipe gets unknown text (eval-exec, escalated).
//
// Severity: high (a forbidden write into an rc file judged sandboxed;
// `f | sh` is medium, escalated where forbidden is due).
// Found by red-team round 47 (high). Fixed: a call of a function the line
// defined prints what its body prints (callFunc returns the body's
// stream), and the call's redirections write that (rememberRedirs).
func TestRedteam47FuncOutput(t *testing.T) {
	const rc = "# rc\n"
	control := `{ echo 'rm -rf ~/.ssh'; } >> ~/.bashrc`
	rtAtLeast(t, rt47bShells(false), control, Forbidden)
	for _, line := range []string{
		`f() { echo 'rm -rf ~/.ssh'; }; f >> ~/.bashrc`,
		`f() { echo 'rm -rf ~/.ssh'; }; f | tee -a ~/.bashrc`,
		`f() { printf 'rm -rf ~/.ssh\n'; }; f >> ~/.bashrc`,
	} {
		for _, sh := range rt47bShells(false) {
			if rtHave(t, sh) && !rt47bRCDeletesSSH(t, sh, rc, line) {
				t.Fatalf("premise: after %s -c %q an interactive bash did not delete ~/.ssh", sh, line)
			}
		}
		rtAtLeast(t, rt47bShells(false), line, Forbidden)
	}

	// f | sh runs the text: premise with a marker, verdict on rm -rf ~.
	home, work := rt47bHome(t, rc)
	out := rt47bRun(t, "bash", home, work, `f() { echo 'echo RT47B-MARK-$((6*7))'; }; f | sh`)
	if out != "RT47B-MARK-42\n" {
		t.Fatalf("premise: f | sh did not run the function's text: %q", out)
	}
	rtAtLeast(t, rt47bShells(false), `echo 'rm -rf ~' | sh`, Forbidden) // control
	rtAtLeast(t, rt47bShells(false), `f() { echo 'rm -rf ~'; }; f | sh`, Forbidden)

	// Legitimate: a helper writing harmless text keeps working.
	rtBelow(t, `f() { echo 'export EDITOR=vim'; }; f >> ~/.bashrc`, Escalated)
	rtBelow(t, `f() { echo hi; }; f >> notes.txt`, Escalated)
}
