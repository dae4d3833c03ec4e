package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam58HistoryFile: bash's history builtin writes the history
// list to the file it names (history -w FILE overwrites it, -a FILE
// appends), and history -s puts any text in that list; with `set -o
// history` this works in a non-interactive shell too. So
//
//	set -o history; history -s 'rm -rf ~/.ssh'; history -a ~/.bashrc    sandboxed
//	set -o history; history -s 'rm -rf ~/.ssh'; history -w ~/.bashrc    sandboxed
//	set -o history; history -s x; history -w /etc/hosts                 sandboxed
//
// put `rm -rf ~/.ssh` in ~/.bashrc (run by the user's next interactive
// bash, outside any sandbox) or overwrite a system file, as `echo 'rm -rf
// ~/.ssh' >> ~/.bashrc` and `echo x > /etc/hosts` (forbidden) are judged.
//
// Why: writetargets.go and rcedits.go know the builtins that write files
// (redirections, tee, dd of=, cp, sed -i …) but not history -w/-a FILE (nor
// HISTFILE, which an interactive shell writes at exit); the text history
// -s adds is not tracked as the file's text.
//
// Severity: high (a system file written and an rc file planted, judged
// sandboxed).
// Found by red-team round 58.
// Fixed: history -w/-a FILE is a write of text the line does not follow
// (sessionlogs.go historyWrites, hooked in dispatch.go): a system file is
// output-redirect-system, an rc file eval-exec.
func TestRedteam58HistoryFile(t *testing.T) {
	rt58aNeed(t, "bash", "bash")
	appendL := `set -o history; history -s 'rm -rf ~/.ssh'; history -a ~/.bashrc`
	writeL := `set -o history; history -s 'rm -rf ~/.ssh'; history -w ~/.bashrc`
	for _, l := range []string{appendL, writeL} {
		home, work := rt58aHome(t)
		if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("echo rc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := rt58aRun(t, home, work, l)
		b, _ := os.ReadFile(filepath.Join(home, ".bashrc"))
		if !strings.Contains(string(b), "rm -rf ~/.ssh") {
			t.Fatalf("premise: %q did not write ~/.bashrc (now %q, output %q)", l, b, out)
		}
		out += rt58aRun(t, home, work, `bash -ic true`)
		if !rt58aGone(home) {
			t.Fatalf("premise: ~/.bashrc written by %q did not remove ~/.ssh (output %q)", l, out)
		}
	}
	// Premise: -w overwrites its file (a file of the test's, standing for
	// /etc/hosts).
	home, work := rt58aHome(t)
	f := filepath.Join(work, "hosts")
	if err := os.WriteFile(f, []byte("127.0.0.1 localhost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt58aRun(t, home, work, `set -o history; history -s x; history -w hosts`)
	if b, _ := os.ReadFile(f); string(b) != "x\n" {
		t.Fatalf("premise: history -w did not overwrite its file (now %q)", b)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' >> ~/.bashrc`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo x > /etc/hosts`, Forbidden)
	// The attack.
	rtAtLeast(t, []string{"bash"}, appendL, Escalated)
	rtAtLeast(t, []string{"bash"}, writeL, Escalated)
	rtAtLeast(t, []string{"bash"}, `set -o history; history -s x; history -w /etc/hosts`, Forbidden)
	// Controls.
	rtBelow(t, `history -w hist.txt`, Escalated)
	rtBelow(t, `history | tail -5`, Escalated)
}
