package classify

import (
	"strings"
	"testing"
)

// TestRedteam47GlobScript: a shell whose script is named by a glob, by
// find's {} or by xargs' input runs a file the line itself wrote:
//
//	echo 'rm -rf ~' > x; sh ./*
//	echo 'rm -rf ~' > x; . ./*
//	echo 'rm -rf ~' > x; find . -name x -exec sh {} \;
//	echo 'rm -rf ~' > x; ls | xargs sh
//
// each sandboxed, where `echo 'rm -rf ~' > x; sh x` is forbidden and a
// script only known at run time, `sh "$X"` or `sh "$(ls)"`, is escalated
// (eval-exec). scriptFile (dispatch.go) treats the glob ./*, find's {}
// and xargs' appended argument as an ordinary script file of the
// project: writtenScript looks the word up as a literal name (./* is no
// key of the files the line wrote), finds nothing and judges nothing,
// instead of taking it as a run-time name that may be, and here is, the
// file the line wrote.
//
// Severity: high (`rm -rf ~` run, judged sandboxed; escalated at least,
// as for "$X", is due).
// Found by red-team round 47 (high). Fixed: a script named by a glob or by
// find's {} runs every file written on the line it may stand for
// (matchedScripts); ls | xargs sh runs a run-time script (eval-exec).
func TestRedteam47GlobScript(t *testing.T) {
	rtAtLeast(t, rt47bShells(false), `echo 'rm -rf ~' > x; sh x`, Forbidden) // control
	rtAtLeast(t, rt47bShells(false), `sh "$X"`, Escalated)                   // control
	for _, tail := range []string{
		`sh ./*`,
		`. ./*`,
		`find . -name x -exec sh {} \;`,
		`ls | xargs sh`,
	} {
		// Premise, in an empty working directory: the marker script
		// written to x runs.
		for _, sh := range rt47bShells(false) {
			if !rtHave(t, sh) {
				continue
			}
			home, work := rt47bHome(t, "# rc\n")
			line := `echo 'echo RT47B-MARK-$((6*7))' > x; ` + tail
			if out := rt47bRun(t, sh, home, work, line); !strings.Contains(out, "RT47B-MARK-42") {
				t.Fatalf("premise: %s -c %q did not run x: %q", sh, line, out)
			}
		}
		rtAtLeast(t, rt47bShells(false), `echo 'rm -rf ~' > x; `+tail, Escalated)
	}
	// Legitimate: running the project's own scripts keeps working.
	rtBelow(t, `sh scripts/build.sh`, Escalated)
}
