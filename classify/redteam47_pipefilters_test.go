package classify

import "testing"

// TestRedteam47PipeFilters: the everyday text filters pass the text piped
// into them through (all of it, or the lines they select), but their
// output is unknown to the classifier:
//
//	echo 'rm -rf ~/.ssh' | head -n1 >> ~/.bashrc       sandboxed
//	echo 'rm -rf ~/.ssh' | tail -n1 >> ~/.bashrc       sandboxed
//	echo 'rm -rf ~/.ssh' | sort >> ~/.bashrc           sandboxed
//	echo 'rm -rf ~/.ssh' | uniq >> ~/.bashrc           sandboxed
//	echo 'rm -rf ~/.ssh' | grep rm >> ~/.bashrc        sandboxed
//	echo 'rm -rf ~/.ssh' | tac >> ~/.bashrc            sandboxed
//	echo 'rm -rf ~/.ssh' | cut -c1- >> ~/.bashrc       sandboxed
//	echo 'rm -rf ~/.ssh' | sed -n 1p >> ~/.bashrc      sandboxed
//	echo 'rm -rf ~/.ssh' | cat /dev/stdin >> ~/.bashrc sandboxed
//	echo 'rm -rf ~' | head -n1 | sh                    escalated
//
// Each rc-file line puts `rm -rf ~/.ssh` into ~/.bashrc, run by the next
// interactive shell; with `| cat >> ~/.bashrc` or `| tee -a ~/.bashrc`
// the same line is forbidden, and `echo 'rm -rf ~' | sh` is forbidden.
// produce (produce.go) passes the piped stream on only for cat (without
// file operands: `cat /dev/stdin` is a "file"), tee, pv, buffer, mbuffer
// and dd, and decodes for a few decoders; every other program's output
// is trUnknown, so writeText (call.go) has no text to judge as the rc
// file's and sh gets unknown text (eval-exec).
//
// Severity: high (a forbidden write into an rc file judged sandboxed;
// `| head | sh` is medium, escalated where forbidden is due).
// Found by red-team round 47 (high). Fixed: the line filters (head, tail,
// sort, uniq, tac, shuf, grep, sed's p/d/q scripts, with the options that
// keep lines whole) print a known single line as it is and several as
// lines each judged alone and together (linefilters.go); cut of a known
// text is computed (cuttext.go); cat /dev/stdin passes its input through.
func TestRedteam47PipeFilters(t *testing.T) {
	const rc = "# rc\n"
	rtAtLeast(t, rt47bShells(false), `echo 'rm -rf ~/.ssh' | cat >> ~/.bashrc`, Forbidden) // control
	for _, line := range []string{
		`echo 'rm -rf ~/.ssh' | head -n1 >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | tail -n1 >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | sort >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | uniq >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | grep rm >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | tac >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | cut -c1- >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | sed -n 1p >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | cat /dev/stdin >> ~/.bashrc`,
	} {
		for _, sh := range rt47bShells(false) {
			if rtHave(t, sh) && !rt47bRCDeletesSSH(t, sh, rc, line) {
				t.Fatalf("premise: after %s -c %q an interactive bash did not delete ~/.ssh", sh, line)
			}
		}
		rtAtLeast(t, rt47bShells(false), line, Forbidden)
	}

	home, work := rt47bHome(t, rc)
	if out := rt47bRun(t, "bash", home, work, `echo 'echo RT47B-MARK-$((6*7))' | head -n1 | sh`); out != "RT47B-MARK-42\n" {
		t.Fatalf("premise: | head -n1 | sh did not run the text: %q", out)
	}
	rtAtLeast(t, rt47bShells(false), `echo 'rm -rf ~' | sh`, Forbidden) // control
	rtAtLeast(t, rt47bShells(false), `echo 'rm -rf ~' | head -n1 | sh`, Forbidden)

	// Legitimate: filtering into a project file keeps working.
	rtBelow(t, `git log --oneline | head -n5 > notes.txt`, Escalated)
	rtBelow(t, `sort names.txt | uniq > out.txt`, Escalated)
	rtBelow(t, `echo 'export EDITOR=vim' | head -n1 >> ~/.bashrc`, Escalated)
}
