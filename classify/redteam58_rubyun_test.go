package classify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedteam58RubyUn: `ruby -run -e CMD -- ARGS` loads Ruby's standard
// library un.rb (-r un), whose functions are the file utilities: rm
// (with -r, -f), cp, mv, ln, install, mkdir, chmod, touch … So
//
//	ruby -run -e rm -- -rf /                 sandboxed
//	ruby -run -e rm -- -rf ~                 sandboxed
//	ruby -run -e cp -- x /etc/hosts          sandboxed
//
// are rm -rf / and ~, and cp onto a system file, which `rm -rf /`, `rm
// -rf ~` and `cp x /etc/hosts` are judged (forbidden).
//
// Why: shells.go gives ruby -r as an option with a value and -e as code;
// the code `rm` (a bare method name) holds no spawn or path the code scan
// (code.go) looks for, and the operands after -- are ARGV to it; nothing
// maps un.rb's functions to the commands they are.
//
// Severity: high (rm -rf / judged sandboxed).
// Found by red-team round 58.
// Fixed: rubycode.go rubyRuns: with -r un and -e naming one of un.rb's
// file utilities (cp, ln, mv, rm, mkdir, rmdir, install, chmod, touch),
// the command of that name runs with the code's ARGV.
func TestRedteam58RubyUn(t *testing.T) {
	rt58aNeed(t, "ruby", "bash", "ruby")
	// Premise: un.rb's rm -rf deletes (the fake home's ~/.ssh standing
	// for / and ~), its cp overwrites.
	rt58aPremise(t, `ruby -run -e rm -- -rf ~/.ssh`, "")
	home, work := rt58aHome(t)
	f := filepath.Join(work, "hosts")
	if err := os.WriteFile(f, []byte("127.0.0.1 localhost\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rt58aRun(t, home, work, `echo x > x; ruby -run -e cp -- x hosts`)
	if b, _ := os.ReadFile(f); string(b) != "x\n" {
		t.Fatalf("premise: ruby -run -e cp did not overwrite its target (now %q)", b)
	}
	// Control of the premise: un.rb's help keeps ~/.ssh.
	home, work = rt58aHome(t)
	if out := rt58aRun(t, home, work, `ruby -run -e help -- rm`); rt58aGone(home) {
		t.Fatalf("premise: ruby -run -e help removed ~/.ssh (output %q)", out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `rm -rf /`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `rm -rf ~`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `cp x /etc/hosts`, Forbidden)
	// The attack.
	for _, l := range []string{`ruby -run -e rm -- -rf /`, `ruby -run -e rm -- -rf ~`,
		`ruby -run -e cp -- x /etc/hosts`} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls.
	rtBelow(t, `ruby -run -e rm -- -rf build`, Escalated)
	rtBelow(t, `ruby -run -e httpd -- . -p 8000`, Escalated)
}
