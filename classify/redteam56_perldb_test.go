package classify

import (
	"path/filepath"
	"testing"
)

// TestRedteam56PerlDebuggerRc: perl's debugger (perl -d) runs the Perl
// code of a .perldb file in the working directory, else in the home
// (perl5db.pl: `do` of ./.perldb or ~/.perldb, when owned by the user and
// not writable by others, as a file the line writes is), before its first
// prompt. So
//
//	printf 'system("rm -rf ~/.ssh");\n' > .perldb; perl -d -e 1     sandboxed
//	printf 'system("rm -rf ~/.ssh");\n' > ~/.perldb                  sandboxed  (runs at the user's next perl -d, on the host)
//
// delete ~/.ssh, as `perl -e 'system("rm -rf ~/.ssh")'` (forbidden) and
// pdb's `.pdbrc` written with the same payload (forbidden since round 55)
// do.
//
// Why: toolscripts.go toolScripts has pdb's .pdbrc (round 55), vim's,
// tmux's, gdb's and sqlite3's start-up files, but not perl's debugger's
// .perldb (nor the PERLDB_OPTS/PERL5DB pair that reads it): toolRc does
// not know the name, so neither the planted file nor perl -d reading the
// one the line wrote is judged.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed; code planted to run on
// the host at the next perl -d judged sandboxed).
// Found by red-team round 56. Fixed: toolscripts.go (.perldb is Perl).
func TestRedteam56PerlDebuggerRc(t *testing.T) {
	const (
		cwdLine  = `printf 'system("rm -rf ~/.ssh");\n' > .perldb; perl -d -e 1`
		homeLine = `printf 'system("rm -rf ~/.ssh");\n' > ~/.perldb`
	)
	if rtHave(t, "bash", "perl") {
		rt56aPremise(t, cwdLine)
		// The planted file runs at a later, plain perl -d elsewhere.
		home, work := rt56aHome(t)
		rt56aRun(t, home, work, homeLine)
		if rt56aGone(home) {
			t.Fatal("premise: writing ~/.perldb removed ~/.ssh by itself")
		}
		other := filepath.Join(work, "other")
		out := rt56aRun(t, home, work, `mkdir other && cd other && perl -d -e 1`)
		if !rt56aGone(home) {
			t.Fatalf("premise: perl -d in %s did not run ~/.perldb (output %q)", other, out)
		}
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `perl -e 'system("rm -rf ~/.ssh")'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `printf '!import os;os.system("rm -rf ~/.ssh")\n' > ~/.pdbrc`, Forbidden)
	// The attack.
	rtAtLeast(t, []string{"bash", "sh"}, cwdLine, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, homeLine, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `echo 'system("rm -rf ~/.ssh");' >> ~/.perldb`, Forbidden)
	// Controls: debugger options in .perldb, and perl -d itself.
	rtBelow(t, `printf 'parse_options(q(NonStop=1));\n' > .perldb; perl -d -e 1`, Escalated)
	rtBelow(t, `perl -d script.pl`, Escalated)
}
