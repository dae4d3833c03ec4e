package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam54RcCopy: round 51 made any text only known at run time that
// is written to a file a shell runs later eval-exec (`cat x > ~/.bashrc`,
// `tee ~/.bashrc < x`, `dd if=x of=$HOME/.bashrc`), but putting the same
// unknown file there with cp, mv, install or ln is still sandboxed, and
// the next interactive shell runs it:
//
//	cp x ~/.bashrc                                  sandboxed
//	mv x ~/.bashrc                                  sandboxed
//	install -m644 x ~/.bashrc                       sandboxed
//	ln -sf "$PWD/x" ~/.bashrc                       sandboxed
//
// while `cat x > ~/.bashrc` is escalated (eval-exec) and `echo 'rm -rf
// ~/.ssh' > y; cp y ~/.bashrc` is forbidden.
//
// Why: call.go (writeText) judges unknown text only where a command's
// output or a dd/tee target lands in the run file; the copy commands'
// destination (writetargets.go destWriters) carries the source's text when
// the line wrote it and nothing otherwise, so an unknown source is not
// eval-exec.
//
// The premise puts `rm -rf ~/.ssh` in x (as an earlier command would) in
// a fake home's working directory, runs each line, then `bash -ic true`
// there, and checks that ~/.ssh is gone.
//
// Severity: high (code planted to run at the next shell, judged
// sandboxed).
// Found by red-team round 54.
// Fixed: cp, mv, install and ln of a file the line did not write into a run
// file are eval-exec (writeforms.go).
func TestRedteam54RcCopy(t *testing.T) {
	lines := []string{
		`cp x ~/.bashrc`,
		`mv x ~/.bashrc`,
		`install -m644 x ~/.bashrc`,
		`ln -sf "$PWD/x" ~/.bashrc`,
	}
	if rtHave(t, "bash", "cp", "install", "ln") {
		for _, l := range lines {
			home, work := rt52bHome(t)
			if err := os.WriteFile(filepath.Join(work, "x"), []byte("rm -rf ~/.ssh\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out := rt52bRun(t, home, work, l)
			if rt52bGone(home) {
				t.Fatalf("premise: %q itself removed ~/.ssh: %q", l, out)
			}
			out += rt52bRun(t, home, work, "bash -ic true")
			if !rt52bGone(home) {
				t.Fatalf("premise: %q then bash -i did not remove ~/.ssh (output %q)", l, out)
			}
		}
	}
	// References: the same unknown text written by cat, and a known text
	// copied with cp.
	rtAtLeast(t, []string{"bash"}, `cat x > ~/.bashrc`, Escalated)
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' > y; cp y ~/.bashrc`, Forbidden)
	// Controls: copies to files no shell runs.
	rtBelow(t, `cp x backup/x`, Escalated)
	rtBelow(t, `cp ~/.bashrc ~/.bashrc.bak`, Escalated)
	for _, l := range lines {
		rtAtLeast(t, []string{"bash"}, l, Escalated)
	}
}
