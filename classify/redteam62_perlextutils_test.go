package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam62PerlExtUtilsCommand: ExtUtils::Command, a core Perl module
// (the one MakeMaker's Makefiles call as `$(PERLRUN) -MExtUtils::Command
// -e rm_rf`), exports rm_rf, rm_f, cp, mv, touch, mkpath … that act on
// @ARGV, so `perl -MExtUtils::Command -e FUNC ARGS…` is that command,
// as `ruby -run -e rm -- -rf ~` is (which the classifier models):
//
//	perl -MExtUtils::Command -e rm_rf ~                           sandboxed   (rm -rf ~ is forbidden)
//	perl -MExtUtils::Command -e rm_rf /                           sandboxed
//	echo 'rm -rf ~' > x; perl -MExtUtils::Command -e cp x ~/.bashrc   sandboxed   (… cp x ~/.bashrc is forbidden)
//
// Why: code.go's deleteCalls lists rm_rf, but judges only its literal
// arguments (`rm_rf("/")`); a bare `rm_rf` (or `rm_rf()`), which works on
// @ARGV, is not tied to perl's operands, which stay plain data (unlike
// rubycode.go's un.rb model for `ruby -run -e rm`); `cp`/`mv` of the
// module are not modelled at all.
//
// The premise runs each deleting line with Debian's perl in a fake home
// (the `/` line not: the `~` line shows the removal) and checks that its
// ~/.ssh (or the home) is gone, the control `… -e rm_rf build` leaving
// it; and the cp line, checking that the fake ~/.bashrc holds `rm -rf ~`.
//
// Severity: high (forbidden deletions of the home and /, a forbidden
// rc-file write, judged sandboxed). Found by red-team round 62. Fixed: perlcommand.go: perl -MExtUtils::Command -e FUNC ARGS is run as the command FUNC is (rm_rf: rm -rf, cp, mv, mkpath: mkdir -p …), its copies followed (rememberOther), as rubycode.go now also does for ruby -run -e cp.
func TestRedteam62PerlExtUtilsCommand(t *testing.T) {
	deletes := []string{
		`perl -MExtUtils::Command -e rm_rf ~`,
		`perl -MExtUtils::Command -e rm_rf -- ~`,
	}
	const rc = `echo 'rm -rf ~' > x; perl -MExtUtils::Command -e cp x ~/.bashrc`
	rt60aNeed(t, "perl", "perl")
	for _, l := range deletes {
		rt60aPremise(t, l, `perl -MExtUtils::Command -e rm_rf build`)
	}
	home, work := rt60aHome(t)
	out := rt60aRun(t, home, work, rc)
	if b, err := os.ReadFile(filepath.Join(home, ".bashrc")); err != nil || !strings.Contains(string(b), "rm -rf ~") {
		t.Fatalf("premise: %q did not write the fake ~/.bashrc (%q, %v; output %q)", rc, b, err, out)
	}
	// References: the same effects by rm and cp, and by ruby's un.rb.
	for _, l := range []string{`rm -rf ~`, `rm -rf /`, `cd ~ && rm -rf .ssh`, `echo 'rm -rf ~' > x; cp x ~/.bashrc`, `ruby -run -e rm -- -rf ~`} {
		rtAtLeast(t, []string{"bash"}, l, Forbidden)
	}
	// The attack.
	for _, l := range append(deletes, `perl -MExtUtils::Command -e rm_rf /`, rc) {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: MakeMaker's own clean-up calls.
	rtBelow(t, `perl -MExtUtils::Command -e rm_rf blib pm_to_blib`, Escalated)
	rtBelow(t, `perl -MExtUtils::Command -e mkpath blib/lib`, Escalated)
}
