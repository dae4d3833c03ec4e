package classify

import "testing"

// TestRedteam58ShellVar: script(1) runs its -c command as `$SHELL -c
// CMD`, and a tmux server takes its default-shell from $SHELL and runs
// `tmux new CMD` as `default-shell -c CMD`. With SHELL set to an
// interpreter on the line, the command string is that interpreter's
// code, while the classifier judges it as a shell command:
//
//	SHELL=/usr/bin/gawk script -qc 'BEGIN { print "rm -rf ~/.ssh" | "sh" }' /dev/null   sandboxed
//	SHELL=/usr/bin/gawk tmux new -d 'BEGIN { print "rm -rf ~/.ssh" | "sh" }'             sandboxed
//	echo 'import os; os.system("rm -rf ~/.ssh")' > x.py; SHELL=/usr/bin/python3 tmux new -d 'import x'   sandboxed
//	export SHELL=/usr/bin/gawk; script -qc 'BEGIN { print "rm -rf ~/.ssh" | "sh" }' /dev/null    sandboxed
//
// (gawk -c is --traditional; python3 -c runs its code) remove ~/.ssh, as
// `gawk 'BEGIN { print "rm -rf ~/.ssh" | "sh" }'` and `… python3 -c
// 'import x'` (forbidden) are judged. Read as shell, the awk program is
// `BEGIN { print …` piped to `sh }` (a script file named "}"), and
// `import x` is ImageMagick's import.
//
// Why: rules_exec.go loaderVars/riskyEnv do not list SHELL, and the
// wrappers that run a command string through $SHELL (wrappers.go script
// -c, tmux.go tmux new and the tmux commands that start a shell) judge it
// as sh would read it whatever SHELL the line gave them.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 58.
// Fixed: rules_exec.go riskyEnv takes SHELL as risky (eval-exec) when its
// value is not a shell (sessionlogs.go shellVarRisky) or only known at run
// time, and wrappers.go runWrapper still judges a transparent wrapper
// whose own assignments are risky (they do not reach the command string it
// hands on); where SHELL names a program, the command string of script -c,
// flock -c, tmux -c and tmux new/neww/… is also judged as `$SHELL -c
// STRING` (sessionlogs.go shellVarRun): gawk -c PROG, python3 -c CODE.
func TestRedteam58ShellVar(t *testing.T) {
	rt58aNeed(t, "gawk, tmux, bsdutils (script), python3", "bash", "gawk", "tmux", "script", "python3")
	const prog = `'BEGIN { print "rm -rf ~/.ssh" | "sh" }'`
	scriptL := `SHELL=/usr/bin/gawk script -qc ` + prog + ` /dev/null`
	tmuxL := `SHELL=/usr/bin/gawk tmux new -d ` + prog
	pyL := `echo 'import os; os.system("rm -rf ~/.ssh")' > x.py; SHELL=/usr/bin/python3 tmux new -d 'import x'`
	exportL := `export SHELL=/usr/bin/gawk; script -qc ` + prog + ` /dev/null`
	const wait = `; sleep 2; tmux kill-server; true`
	rt58aPremise(t, scriptL, "")
	rt58aPremise(t, tmuxL+wait, "")
	rt58aPremise(t, pyL+wait, "")
	rt58aPremise(t, exportL, "")
	// Control of the premise: with the shell SHELL names by default the
	// string is a harmless shell command.
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, `SHELL=/bin/sh script -qc `+prog+` /dev/null`); rt58aGone(home) {
		t.Fatalf("premise: under sh the string removed ~/.ssh (output %q)", out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `gawk `+prog, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'import os; os.system("rm -rf ~/.ssh")' > x.py; python3 -c 'import x'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `tmux new -d 'rm -rf ~/.ssh'`, Forbidden)
	// The attack.
	for _, l := range []string{scriptL, tmuxL, pyL, exportL} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls.
	rtBelow(t, `SHELL=/bin/bash tmux new -d make`, Escalated)
	rtBelow(t, `script -qc make build.log`, Escalated)
}
