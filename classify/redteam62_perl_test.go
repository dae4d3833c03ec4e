package classify

import (
	"strings"
	"testing"
)

// TestRedteam62Prove: prove runs the test files it finds (t/*.t by
// default, -r below, or those named) with perl, and the classifier reads
// none of them, though it judges the very same file run as `perl t/a.t`:
//
//	mkdir t; printf 'system("rm -rf ~/.ssh");\nprint "ok 1\\n1..1\\n";\n' > t/a.t; prove      sandboxed
//	(the same) prove -r, prove t, prove t/a.t, prove -v -l                                     sandboxed
//
// each removes ~/.ssh, where `perl t/a.t` is judged (escalated).
//
// Why: nothing in package classify knows prove (toolscripts.go:runnerCode
// follows pytest's, rspec's, node --test's written test files, not
// prove's); prove falls through to sandboxed.
//
// Premise: Debian's prove (package perl) in a fake home; the control
// prints only. Severity: high (a forbidden deletion of the home's ~/.ssh
// judged sandboxed). Found by red-team round 62. Fixed: perlscripts.go: prove judges the written test files it is named or finds below its directories (t by default) as perl runs them (toolscripts.go hook).
func TestRedteam62Prove(t *testing.T) {
	const code = `system("rm -rf ~/.ssh");`
	const write = `mkdir t; printf '` + code + `\nprint "ok 1\\n1..1\\n";\n' > t/a.t; `
	attacks := []string{
		write + `prove`,
		write + `prove -r`,
		write + `prove t`,
		write + `prove t/a.t`,
		write + `prove -v -l`,
	}
	rt60aNeed(t, "perl", "perl", "prove")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, code, `1;`))
	}
	rtAtLeast(t, []string{"bash"}, write+`perl t/a.t`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `prove -lr t`, Escalated)
	rtBelow(t, `mkdir t; printf 'print "ok 1\\n1..1\\n";\n' > t/a.t; prove`, Escalated)
}

// TestRedteam62PerlShebang: perl given a script whose #! line names
// neither "perl" nor "indir" does not run it: it executes the program the
// #! line names with the script (perlrun: "If the #! line does not contain
// the word "perl" nor the word "indir", the program named after the #! is
// executed instead of the Perl interpreter"). So a shell script the line
// writes and hands to perl runs as shell, and the classifier, which reads
// it as Perl code (finding no spawn), judges it sandboxed:
//
//	printf '#!/bin/sh\nrm -rf ~/.ssh\n' > x.pl; perl x.pl      sandboxed
//	(the same) perl x.sh, perl ./x.pl a b, mkdir t; … > t/a.t; prove  sandboxed
//
// each removes ~/.ssh, where `sh x.pl` (and `./x.pl` after chmod) are
// judged forbidden.
//
// Why: the written-script follower (toolscripts.go / codefiles.go) takes
// the interpreter from the command word (perl) and judges the text as
// Perl; perl's hand-over to the #! program is not modelled.
//
// Premise: Debian's perl in a fake home; the control's script runs
// `true`. Severity: high. Found by red-team round 62. Fixed: perlscripts.go: a written script perl (or prove) runs whose #! line names neither perl nor indir is judged as the program the #! line names runs it (shells.go hook).
func TestRedteam62PerlShebang(t *testing.T) {
	attacks := []string{
		`printf '#!/bin/sh\nrm -rf ~/.ssh\n' > x.pl; perl x.pl`,
		`printf '#!/bin/sh\nrm -rf ~/.ssh\n' > x.sh; perl x.sh`,
		`printf '#!/bin/bash\nrm -rf ~/.ssh\n' > x.pl; perl ./x.pl a b`,
		`mkdir t; printf '#!/bin/sh\nrm -rf ~/.ssh\n' > t/a.t; prove`,
	}
	rt60aNeed(t, "perl", "perl", "prove")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"))
	}
	rtAtLeast(t, []string{"bash"}, `printf '#!/bin/sh\nrm -rf ~/.ssh\n' > x.pl; sh x.pl`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `printf '#!/usr/bin/perl\nprint "hi\\n";\n' > x.pl; perl x.pl`, Escalated)
	rtBelow(t, `printf '#!/usr/bin/env perl\nuse strict;\nprint 1;\n' > x.pl; perl ./x.pl a b`, Escalated)
}

// TestRedteam62MakeMaker: `perl Makefile.PL` writes a Makefile holding the
// text Makefile.PL's MY::postamble (or MY::* overrides) returns, and
// `make` then runs its recipes. The classifier reads Makefile.PL as Perl
// (no spawn in it) and the Makefile is not written by the line's shell,
// so
//
//	printf 'use ExtUtils::MakeMaker;\nWriteMakefile(NAME => "X");\nsub MY::postamble { "pure_all ::\\n\\trm -rf ~/.ssh\\n" }\n' > Makefile.PL; perl Makefile.PL && make   sandboxed
//
// removes ~/.ssh, where a Makefile with that recipe written by the line
// itself and run by make is judged.
//
// Why: nothing models ExtUtils::MakeMaker (or Module::Build's Build.PL);
// makefile.go follows only Makefiles the shell line writes.
//
// Premise: Debian's perl (ExtUtils::MakeMaker is in perl-modules) and
// make in a fake home; the control's recipe runs `true`. Severity: high.
// Found by red-team round 62. Fixed: perlscripts.go: perl running a written Makefile.PL records the Makefile it writes as the make text of its strings and here-documents (MY::postamble), so make judges those recipes.
func TestRedteam62MakeMaker(t *testing.T) {
	const pl = `printf 'use ExtUtils::MakeMaker;\nWriteMakefile(NAME => "X");\nsub MY::postamble { "pure_all ::\\n\\trm -rf ~/.ssh\\n" }\n' > Makefile.PL; `
	attacks := []string{
		pl + `perl Makefile.PL && make`,
		pl + `perl Makefile.PL; make`,
	}
	rt60aNeed(t, "perl", "perl")
	rt60aNeed(t, "make", "make")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"))
	}
	rtAtLeast(t, []string{"bash"}, `printf 'pure_all:\n\trm -rf ~/.ssh\n' > Makefile; make`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `perl Makefile.PL && make && make test`, Escalated)
	rtBelow(t, `printf 'use ExtUtils::MakeMaker;\nWriteMakefile(NAME => "X");\n' > Makefile.PL; perl Makefile.PL && make`, Escalated)
}
