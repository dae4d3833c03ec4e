package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam58RubyInplace: ruby -i[EXT] edits its file operands in place
// (with -p/-n, what the code prints replaces each file), as perl -i
// does, but only perl's is taken as a write:
//
//	ruby -i -pe '$_ = "x\n"' /etc/hosts                                     sandboxed
//	ruby -pi -e 'sub(/a/, "b")' /etc/hosts                                  sandboxed
//	ruby -i.bak -pe 'puts "rm -rf ~/.ssh" if $. == 1' ~/.bashrc              sandboxed
//
// rewrite a system file, or put `rm -rf ~/.ssh` at the top of ~/.bashrc
// (run by the user's next interactive bash, outside any sandbox), as
// `perl -i -pe 's/x/y/' /etc/hosts` (forbidden) and `perl -i -pe 's/x/y/'
// ~/.bashrc` (escalated) are judged.
//
// Why: the in-place writers (writetargets.go, rcedits.go) are sed -i
// and perl -i; shells.go gives ruby loopShort "np" but nothing takes
// ruby's -i (alone, with a suffix, or in a cluster such as -pi) as making
// the operands write targets, nor the rc file's new text as unknown
// (eval-exec, as perl -i's is).
//
// Severity: high (a system file written, an rc file planted, judged
// sandboxed).
// Found by red-team round 58.
// Fixed: rubycode.go rubyRuns: ruby's options are read by letter as ruby
// does (rubyArgs); with -i every file operand is a write (toolWrite,
// unknown text), and on an rc file the code's string literals are judged
// as lines it may add, as perl -i's.
func TestRedteam58RubyInplace(t *testing.T) {
	rt58aNeed(t, "ruby", "bash", "ruby")
	rc := `ruby -i.bak -pe 'puts "rm -rf ~/.ssh" if $. == 1' ~/.bashrc`
	home, work := rt58aHome(t)
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("echo rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := rt58aRun(t, home, work, rc)
	out += rt58aRun(t, home, work, `bash -ic true`)
	if !rt58aGone(home) {
		b, _ := os.ReadFile(filepath.Join(home, ".bashrc"))
		t.Fatalf("premise: %q then bash -i did not remove ~/.ssh (.bashrc %q, output %q)", rc, b, out)
	}
	for _, l := range []string{`ruby -i -pe '$_ = "x\n"' hosts`, `ruby -pi -e 'sub(/127/, "x")' hosts`} {
		home, work = rt58aHome(t)
		f := filepath.Join(work, "hosts")
		if err := os.WriteFile(f, []byte("127.0.0.1 localhost\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rt58aRun(t, home, work, l)
		if b, _ := os.ReadFile(f); string(b) == "127.0.0.1 localhost\n" {
			t.Fatalf("premise: %q did not rewrite its operand", l)
		}
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `perl -i -pe 's/x/y/' /etc/hosts`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `perl -i -pe 's/x/y/' ~/.bashrc`, Escalated)
	// The attack.
	rtAtLeast(t, []string{"bash", "sh"}, `ruby -i -pe '$_ = "x\n"' /etc/hosts`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `ruby -pi -e 'sub(/a/, "b")' /etc/hosts`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, rc, Escalated)
	// Controls.
	rtBelow(t, `ruby -i -pe 'sub(/foo/, "bar")' src/app.rb`, Escalated)
	rtBelow(t, `ruby -ne 'print if /x/' /etc/hosts`, Escalated)
}
