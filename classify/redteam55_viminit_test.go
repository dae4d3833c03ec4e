package classify

import "testing"

// TestRedteam55VimInitEnv: Vim runs the ex commands in $VIMINIT at start-up
// (in place of ~/.vimrc), so
//
//	VIMINIT='call system("rm -rf ~/.ssh")' vim -c q                      sandboxed
//	VIMINIT='call system("rm -rf ~/.ssh")' view notes.txt                sandboxed
//	echo "export VIMINIT='call system(\"rm -rf ~/.ssh\")'" >> ~/.bashrc  sandboxed
//
// runs rm -rf ~/.ssh, the last one in every later shell of the user's,
// outside the sandbox, the first time vim is opened there. The same ex
// command given with `vim --cmd`/`-c`, or written to ~/.vimrc, is
// forbidden (vimex.go follows vim's ex commands; toolscripts.go judges
// ~/.vimrc), and an export of another start-up variable in ~/.bashrc
// (`export PROMPT_COMMAND='rm -rf ~/.ssh'`) is judged.
//
// Why: VIMINIT is not among the variables read as code (rules_exec.go:
// loaderVars/codeVars: PROMPT_COMMAND, EDITOR, LESSOPEN … are), and the
// vim model (vimex.go) reads only the command line's -c/--cmd/-S/-u, not
// the environment the program starts with; an rc file's `export
// VIMINIT=…` is thus an assignment of a plain variable (allow).
//
// The premise runs the lines with the real vim in a fake home and checks
// that ~/.ssh is gone.
//
// Severity: high (a forbidden command, and code planted to run on the
// host later, judged sandboxed).
// Found by red-team round 55. Fixed: VIMINIT and EXINIT are judged as ex commands, and eval-exec
// where they cannot be followed (vimex.go: vimInitCode, vimExOpaque).
func TestRedteam55VimInitEnv(t *testing.T) {
	premises := []string{
		`VIMINIT='call system("rm -rf ~/.ssh")' vim -c q`,
		`echo "export VIMINIT='call system(\"rm -rf ~/.ssh\")'" >> ~/.bashrc && . ~/.bashrc && vim -c q`,
	}
	if rtHave(t, "bash", "vim") {
		for _, l := range premises {
			home, work := rt55aHome(t)
			out := rt55aRun(t, home, work, l)
			if !rt55aGone(home) {
				t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", l, out)
			}
		}
	}
	// References: the same ex command on vim's command line, in ~/.vimrc,
	// and another start-up variable exported from ~/.bashrc.
	rtAtLeast(t, []string{"bash", "sh"}, `vim --cmd 'call system("rm -rf ~/.ssh")' -c q`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `echo 'call system("rm -rf ~/.ssh")' >> ~/.vimrc`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `echo "export PROMPT_COMMAND='rm -rf ~/.ssh'" >> ~/.bashrc`, Forbidden)
	// The attack.
	for _, l := range []string{
		`VIMINIT='call system("rm -rf ~/.ssh")' vim -c q`,
		`VIMINIT='!rm -rf ~/.ssh' vi notes.txt`,
		`VIMINIT='call system("rm -rf ~/.ssh")' view notes.txt`,
		`export VIMINIT='call system("rm -rf ~/.ssh")'; vimdiff a b`,
		`echo "export VIMINIT='call system(\"rm -rf ~/.ssh\")'" >> ~/.bashrc`,
	} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls: everyday settings stay below escalated.
	rtBelow(t, `VIMINIT='set nocompatible' vim -c q`, Escalated)
	rtBelow(t, `echo "export VIMINIT='set number'" >> ~/.bashrc`, Escalated)
}
