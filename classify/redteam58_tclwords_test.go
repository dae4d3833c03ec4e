package classify

import (
	"os"
	"strings"
	"testing"
)

// TestRedteam58TclWords: Tcl (tclsh, expect) names files with bare words,
// and Tcl 8.6 expands ~ in them; its own commands read and delete files
// (open/read, file delete -force) and load a script (source). The
// classifier scans Tcl code for quoted strings and exec/spawn commands
// only, so
//
//	echo 'file delete -force ~/.ssh' | tclsh                           sandboxed
//	expect -c 'file delete -force ~'                                   sandboxed (the whole home)
//	expect -c 'puts [read [open ~/.ssh/id_rsa]]'                       sandboxed
//	echo 'exec sh -c "rm -rf ~/.ssh"' > x.tcl; echo 'source x.tcl' | tclsh   sandboxed
//	echo 'exec sh -c "rm -rf ~/.ssh"' > x.tcl; expect -c 'source x.tcl'      sandboxed
//
// remove ~/.ssh (the home), print the key, while the same code with the
// path in quotes (`expect -c 'file delete -force "~/.ssh"'`) is escalated
// and `expect -c 'spawn rm -rf ~/.ssh'` and `… tclsh x.tcl` forbidden.
//
// Why: code.go's scan of tcl/expect code finds credential paths and
// delete targets in string literals only ("…"), not in Tcl's bare words
// or {…} words; there is no model of Tcl's file delete (the counterpart
// of Python's rmtree and Ruby's FileUtils.rm_rf, which are judged), and
// Tcl's source of a file the line wrote is not followed.
//
// Severity: high (the home deleted and a key read, judged sandboxed).
// Found by red-team round 58.
// Fixed: tclcode.go reads Tcl's words (bare, quoted, braced, bracketed, bodies too) and a table of its file commands (file delete/copy/rename/mkdir, open, source), hooked in code.go scanCode; source of a written file is followed (shells.go codeText).
func TestRedteam58TclWords(t *testing.T) {
	rt58aNeed(t, "tcl, expect", "bash", "tclsh", "expect")
	const w = `echo 'exec sh -c "rm -rf ~/.ssh"' > x.tcl; `
	deletes := []string{
		`echo 'file delete -force ~/.ssh' | tclsh`,
		`expect -c 'file delete -force ~/.ssh'`,
		w + `echo 'source x.tcl' | tclsh`,
		w + `expect -c 'source x.tcl'`,
	}
	for _, l := range deletes {
		rt58aPremise(t, l, "")
	}
	home, work := rt58aHome(t)
	whole := `expect -c 'file delete -force ~'`
	rt58aRun(t, home, work, whole)
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("premise: %q did not delete the home", whole)
	}
	read := `expect -c 'puts [read [open ~/.ssh/id_rsa]]'`
	home, work = rt58aHome(t)
	if out := rt58aRun(t, home, work, read); !strings.Contains(out, rt58aSecret) {
		t.Fatalf("premise: %q did not print the key (output %q)", read, out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `expect -c 'file delete -force "~/.ssh"'`, Escalated)
	rtAtLeast(t, []string{"bash"}, `expect -c 'spawn rm -rf ~/.ssh; expect eof'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, w+`tclsh x.tcl`, Forbidden)
	// The attack.
	for _, l := range deletes {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtAtLeast(t, []string{"bash", "sh"}, whole, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, read, Escalated)
	// Controls.
	rtBelow(t, `echo 'file delete -force build' | tclsh`, Escalated)
	rtBelow(t, `echo 'puts [read [open README.md]]' | tclsh`, Escalated)
}
