package classify

import "testing"

// TestRedteam58GawkInclude: gawk loads awk source files the line wrote by
// ways other than -f: -i/--include FILE, @include "FILE" in the program,
// -E/--exec FILE, and -f NAME found on AWKPATH (NAME.awk too). So
//
//	echo 'BEGIN{system("rm -rf ~/.ssh")}' > x.awk; gawk --include=x.awk 1    sandboxed
//	… gawk -ix.awk 1   … gawk '@include "x.awk"'   … gawk -e '@include "x.awk"'   sandboxed
//	… gawk -E x.awk    … gawk --exec=x.awk                                  sandboxed
//	… AWKPATH=. gawk -f x                                                   sandboxed
//
// remove ~/.ssh, as `… gawk -f x.awk` (forbidden) does.
//
// Why: convention.go writtenCode follows a written file named by awk's -f
// (and --file) only: gawk's --include/-i (attached values too), the
// @include directive in program text, -E/--exec, and the AWKPATH lookup
// of -f NAME (rules_exec.go riskyEnv does not list AWKPATH) are not.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 58.
// Fixed: gawk.go awkWrittenCode (called from convention.go) follows -f, -E/--exec, -i/--include, -D and @include files (nested too) the line wrote, as NAME and NAME.awk in each AWKPATH directory.
func TestRedteam58GawkInclude(t *testing.T) {
	rt58aNeed(t, "gawk", "bash", "gawk")
	const w = `echo 'BEGIN{system("rm -rf ~/.ssh")}' > x.awk; `
	attacks := []string{
		w + `gawk --include=x.awk 1`,
		w + `gawk -ix.awk 1`,
		w + `gawk '@include "x.awk"'`,
		w + `gawk -e '@include "x.awk"'`,
		w + `gawk -E x.awk`,
		w + `gawk --exec=x.awk`,
		w + `AWKPATH=. gawk -f x`,
	}
	for _, l := range attacks {
		rt58aPremise(t, l, "")
	}
	// Control of the premise: a harmless x.awk.
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, `echo 'BEGIN{print 1}' > x.awk; gawk '@include "x.awk"'`); rt58aGone(home) {
		t.Fatalf("premise: a harmless x.awk removed ~/.ssh (output %q)", out)
	}
	// Reference.
	rtAtLeast(t, []string{"bash"}, w+`gawk -f x.awk`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: the project's own awk library.
	rtBelow(t, `gawk -f lib.awk -f main.awk data.txt`, Escalated)
	rtBelow(t, `gawk '@include "lib.awk"; {print f($1)}' data.txt`, Escalated)
}
