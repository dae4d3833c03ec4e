package classify

import "testing"

// TestRedteam58RubyLoad: a Ruby file the line wrote and then has ruby
// load by its own options or by the code of a one-liner is not judged:
//
//	echo 'system("rm -rf ~/.ssh")' > x.rb; ruby -r./x -e 1                 sandboxed
//	… ruby -I. -rx -e 1                                                     sandboxed
//	… RUBYLIB=. ruby -rx -e 1                                               sandboxed
//	… ruby -e 'load "x.rb"'                                                 sandboxed
//	… ruby -e 'require_relative "x"'                                        sandboxed
//	… ruby -e 'require "./x"'                                               sandboxed
//
// each removes ~/.ssh, as `… ruby x.rb` (forbidden) and `RUBYOPT=-r./x
// ruby -e 1` (escalated, eval-exec) do.
//
// Why: shells.go lists ruby with its -e code only; the file the line
// wrote is followed when it is ruby's script operand, but convention.go
// writtenCode has no case for ruby: not when -r names it (a feature found
// in the working directory or on -I/RUBYLIB, which rules_exec.go
// riskyEnv does not list), nor when the one-liner's code loads it (load, require, require_relative): the counterparts that
// node (-r, --import) and Python (import of a written module,
// exec(open(…).read())) have are followed.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 58.
// Fixed: rubycode.go rubyWrittenCode (hooked in dispatch.go): ruby's -r
// features (a path, or found in the -I directories and RUBYLIB) and the
// load/require/require_relative/eval(File.read) of -e code, where the line
// wrote the file, are judged as Ruby.
func TestRedteam58RubyLoad(t *testing.T) {
	rt58aNeed(t, "ruby", "bash", "ruby")
	const w = `echo 'system("rm -rf ~/.ssh")' > x.rb; `
	attacks := []string{
		w + `ruby -r./x -e 1`,
		w + `ruby -I. -rx -e 1`,
		w + `RUBYLIB=. ruby -rx -e 1`,
		w + `ruby -e 'load "x.rb"'`,
		w + `ruby -e 'require_relative "x"'`,
		w + `ruby -e 'require "./x"'`,
	}
	for _, l := range attacks {
		rt58aPremise(t, l, "")
	}
	// Control of the premise: the one-liner alone does not remove it.
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, `echo 'puts 1' > x.rb; ruby -r./x -e 1`); rt58aGone(home) {
		t.Fatalf("premise: a harmless x.rb removed ~/.ssh (output %q)", out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, w+`ruby x.rb`, Forbidden)
	rtAtLeast(t, []string{"bash"}, w+`RUBYOPT=-r./x ruby -e 1`, Escalated)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: a library of the system, and a file the line did not write.
	rtBelow(t, `ruby -rjson -e 'puts JSON.generate([1])'`, Escalated)
	rtBelow(t, `ruby -Ilib -rapp -e 'App.run'`, Escalated)
}
