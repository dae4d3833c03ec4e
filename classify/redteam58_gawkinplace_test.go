package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam58GawkInplace: gawk -i inplace (the in-place extension
// shipped with gawk) rewrites every file operand with what the program
// prints, as sed -i and perl -i do; the classifier does not count it as a
// write, so
//
//	gawk -i inplace 'BEGINFILE{print "rm -rf ~/.ssh"} 1' ~/.bashrc     sandboxed
//	gawk -i inplace '{gsub(/x/,"y")} 1' /etc/hosts                      sandboxed
//
// the first puts `rm -rf ~/.ssh` at the top of ~/.bashrc (run by the
// user's next interactive bash, outside any sandbox), the second rewrites
// a system file; `sed -i '1i rm -rf ~/.ssh' ~/.bashrc` and `sed -i
// 's/x/y/' /etc/hosts` are forbidden, `perl -i -pe … ~/.bashrc` escalated.
//
// Why: the in-place writers are sed -i and perl -i (sedwrite.go,
// writetargets.go, rcedits.go); gawk's -i/--include of the inplace
// library (also -iinplace, --include=inplace, @include "inplace" in the
// program) is not one of them, so neither the file operands as write
// targets (output-redirect-system) nor the rc file's new text (judged as
// if it ran) are looked at.
//
// Severity: high (a system file written, an rc file planted, judged
// sandboxed).
// Found by red-team round 58.
// Fixed: gawk.go awkWriteTargets (hooked in writetargets.go) takes the file operands of gawk with the inplace library (-i/--include, -l, @include/@load) as write targets, and awkInPlace (hooked in writeforms.go) judges an edited run file as perl -i is.
func TestRedteam58GawkInplace(t *testing.T) {
	rt58aNeed(t, "gawk", "bash", "gawk")
	rc := `gawk -i inplace 'BEGINFILE{print "rm -rf ~/.ssh"} 1' ~/.bashrc`
	// Premise: gawk plants the line in ~/.bashrc, which an interactive
	// bash then runs.
	home, work := rt58aHome(t)
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("echo rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := rt58aRun(t, home, work, rc)
	b, _ := os.ReadFile(filepath.Join(home, ".bashrc"))
	if !strings.HasPrefix(string(b), "rm -rf ~/.ssh\n") {
		t.Fatalf("premise: %q did not rewrite ~/.bashrc (now %q, output %q)", rc, b, out)
	}
	out += rt58aRun(t, home, work, `bash -ic true`)
	if !rt58aGone(home) {
		t.Fatalf("premise: the planted ~/.bashrc did not remove ~/.ssh (output %q)", out)
	}
	// Premise: the operand is rewritten in place (a file of the test's,
	// standing for /etc/hosts).
	home, work = rt58aHome(t)
	f := filepath.Join(work, "hosts")
	if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt58aRun(t, home, work, `gawk -i inplace '{gsub(/x/,"y")} 1' hosts`)
	if b, _ := os.ReadFile(f); string(b) != "y\n" {
		t.Fatalf("premise: gawk -i inplace did not rewrite its operand (now %q)", b)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `sed -i '1i rm -rf ~/.ssh' ~/.bashrc`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `sed -i 's/x/y/' /etc/hosts`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `perl -i -pe 's/x/y/' ~/.bashrc`, Escalated)
	// The attack.
	rtAtLeast(t, []string{"bash", "sh"}, rc, Escalated)
	rtAtLeast(t, []string{"bash", "sh"}, `gawk -i inplace '{gsub(/x/,"y")} 1' /etc/hosts`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `gawk -iinplace '{gsub(/x/,"y")} 1' /etc/hosts`, Forbidden)
	// Controls: an in-place edit in the working tree, gawk reading /etc.
	rtBelow(t, `gawk -i inplace '{gsub(/foo/,"bar")} 1' src/config.txt`, Escalated)
	rtBelow(t, `gawk -F: '{print $1}' /etc/passwd`, Escalated)
}
