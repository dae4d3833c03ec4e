package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam51RcUnknownText: text the classifier does not know, written
// into a shell rc file, is sandboxed unless it is spelled `echo "$X"`:
//
//	echo "$X" >> ~/.bashrc                           escalated (eval-exec)
//	printf '%s\n' "$X" >> ~/.bashrc                  sandboxed
//	echo "$X" | awk 1 >> ~/.bashrc                   sandboxed
//	echo 'rm -rf ~/.ssh' | awk 1 >> ~/.bashrc        sandboxed
//	echo 'rm -rf ~/.ssh' | sed 's/x/y/' >> ~/.bashrc sandboxed
//	echo 'rm -rf ~/.ssh' | perl -pe '' >> ~/.bashrc  sandboxed
//	echo 'rm -rf ~/.ssh' | fold >> ~/.bashrc         sandboxed
//	echo 'rz -rf ~/.ssh' | tr z m >> ~/.bashrc       sandboxed
//	echo 'rm -rf ~/.ssh' | gzip | gunzip >> ~/.bashrc sandboxed
//	cat notes.txt >> ~/.bashrc                       sandboxed
//
// The README states the rule: known text written to an rc file is judged
// as if it ran, and one whose new text is not known is eval-exec, "as
// echo "$X" >> ~/.bashrc is". But only echo of a run-time word is made
// eval-exec; the output of every other program (printf, a filter the
// line-filter model of round 47 does not cover — awk, sed with an s
// script, perl -p, fold, tr, gzip|gunzip — or cat of an unknown file) is
// trUnknown (produce.go), and writeText (call.go) hands the stream to
// runTexts (linefilters.go), which judges nothing when the text is not
// known and no lines are: `echo "$X"` only escalates because its text is
// known with a run-time part in it. So the rc file is planted with
// whatever the next interactive shell will run and the line stays
// sandboxed.
//
// The premise runs each line in a fake home holding a ~/.bashrc (X is
// `rm -rf ~/.ssh` in the environment, notes.txt holds it) and then an
// interactive bash, and checks that ~/.ssh is gone.
//
// Severity: high (code planted in an rc file, rm -rf ~/.ssh where the text
// is on the line, judged sandboxed).
// Found by red-team round 51. Fixed: any text only known at run time
// written to a run file is eval-exec (call.go: writeText).
func TestRedteam51RcUnknownText(t *testing.T) {
	lines := []string{
		`printf '%s\n' "$X" >> ~/.bashrc`,
		`echo "$X" | awk 1 >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | awk 1 >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | sed 's/x/y/' >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | perl -pe '' >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | fold >> ~/.bashrc`,
		`echo 'rz -rf ~/.ssh' | tr z m >> ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | gzip | gunzip >> ~/.bashrc`,
		`cat notes.txt >> ~/.bashrc`,
	}
	if rtHave(t, "bash", "awk", "sed", "perl", "fold", "tr", "gzip", "gunzip") {
		for _, line := range lines {
			home, work := rt51aHome(t)
			if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# rc\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("rm -rf ~/.ssh\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := rt51aRun(t, home, work, line, "", "X=rm -rf ~/.ssh")
			if rt51aGone(home) {
				t.Fatalf("premise: %q itself removed ~/.ssh: %q", line, out)
			}
			out += rt51aRun(t, home, work, "bash --noprofile -i -c true", "")
			if !rt51aGone(home) {
				t.Fatalf("premise: after %q an interactive bash did not remove ~/.ssh (output %q)", line, out)
			}
		}
	}
	// Controls: the forms the classifier knows.
	rtAtLeast(t, []string{"bash"}, `echo "$X" >> ~/.bashrc`, Escalated)
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' | cat >> ~/.bashrc`, Forbidden)
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	}
	// Legitimate uses must keep working.
	rtBelow(t, `printf '%s\n' "$X" >> notes.txt`, Escalated)
	rtBelow(t, `echo 'a b' | awk '{print $2}' >> out.txt`, Escalated)
	rtBelow(t, `cat notes.txt >> all.txt`, Escalated)
}
