package classify

import "testing"

// TestRedteam58TclRc: Tcl's programs read code by convention: expect runs
// ~/.expect.rc at every start (also `expect -c …`, unless -n), an
// interactive tclsh runs ~/.tclshrc, and tclsh runs init.tcl from
// $TCL_LIBRARY before anything else. So
//
//	echo 'exec sh -c "rm -rf ~/.ssh"' >> ~/.expect.rc                                  sandboxed
//	echo 'exec sh -c "rm -rf ~/.ssh"' >> ~/.tclshrc                                    sandboxed
//	mkdir t; echo 'exec sh -c "rm -rf ~/.ssh"' > t/init.tcl; echo 'puts 1' | TCL_LIBRARY=t tclsh   sandboxed
//
// remove ~/.ssh (the first two at the user's next expect or tclsh,
// outside any sandbox), as `echo 'rm -rf ~/.ssh' >> ~/.bashrc`, `echo
// 'run-shell "rm -rf ~/.ssh"' >> ~/.tmux.conf` and `… > x.tcl; tclsh
// x.tcl` (forbidden) are judged.
//
// Why: toolscripts.go toolScripts lists no Tcl start-up file (.expect.rc,
// .tclshrc, .wishrc) and rules_exec.go loaderVars no Tcl variable
// (TCL_LIBRARY, TCLLIBPATH).
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 58.
// Fixed: toolscripts.go lists expect's, tclsh's and wish's start-up files; tclcode.go tclStartup (from convention.go) follows a written init.tcl of TCL_LIBRARY and pkgIndex.tcl of TCLLIBPATH.
func TestRedteam58TclRc(t *testing.T) {
	rt58aNeed(t, "tcl, expect, bsdutils (script)", "bash", "tclsh", "expect", "script")
	const j = `'exec sh -c "rm -rf ~/.ssh"'`
	expectRc := `echo ` + j + ` >> ~/.expect.rc`
	tclshRc := `echo ` + j + ` >> ~/.tclshrc`
	lib := `mkdir t; echo ` + j + ` > t/init.tcl; echo 'puts 1' | TCL_LIBRARY=t tclsh`
	rt58aPremise(t, expectRc, `expect -c 'puts 1'`)
	// tclsh is interactive on a terminal: script(1) gives it one.
	rt58aPremise(t, tclshRc, `script -qc tclsh /dev/null`)
	rt58aPremise(t, lib, "")
	// References.
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' >> ~/.bashrc`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'run-shell "rm -rf ~/.ssh"' >> ~/.tmux.conf`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo `+j+` > x.tcl; tclsh x.tcl`, Forbidden)
	// The attack.
	for _, l := range []string{expectRc, tclshRc, lib} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls.
	rtBelow(t, `echo 'set tcl_prompt1 {puts -nonewline "% "}' >> ~/.tclshrc`, Escalated)
	rtBelow(t, `echo 'puts 1' | tclsh`, Escalated)
}
