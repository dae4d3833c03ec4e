package classify

import (
	"strings"
	"testing"
)

// TestRedteam62DpkgBuildpackage: dpkg-buildpackage runs debian/rules (a
// makefile, `#!/usr/bin/make -f`) with the target clean first, then
// build …; when debian/rules is not executable it makes it so itself
// ("debian/rules is not executable; fixing that"), so a line needs no
// chmod (which would escalate). The classifier judges `make -f
// debian/rules clean` and `debian/rules clean` on a written debian/rules
// (forbidden), but not dpkg-buildpackage running it:
//
//	mkdir -p debian/source; printf '#!/usr/bin/make -f\nclean:\n\trm -rf ~/.ssh\n' > debian/rules; (control, changelog, source/format written); dpkg-buildpackage -us -uc -b -d   sandboxed
//
// removes ~/.ssh.
//
// Why: nothing in package classify knows dpkg-buildpackage (nor
// debuild, which runs it); makefile.go follows a written makefile only
// where make (or the makefile as a program) is on the line.
//
// Premise: Debian's dpkg-buildpackage (package dpkg-dev) and make in a
// fake home (-d: no build-dependency check); the control's recipe runs
// `true`. Severity: high (a forbidden deletion of the home's ~/.ssh
// judged sandboxed). Found by red-team round 62. Fixed: buildsystems.go:
// dpkg-buildpackage and debuild run debian/rules, judged as a makefile.
func TestRedteam62DpkgBuildpackage(t *testing.T) {
	const rules = `printf '#!/usr/bin/make -f\nclean:\n\trm -rf ~/.ssh\n' > debian/rules; `
	const meta = `printf 'Source: x\nMaintainer: a <a@b.c>\n\nPackage: x\nArchitecture: all\nDescription: x\n x\n' > debian/control; ` +
		`printf 'x (1.0) unstable; urgency=low\n\n  * x\n\n -- a <a@b.c>  Mon, 01 Jan 2024 00:00:00 +0000\n' > debian/changelog; ` +
		`echo "3.0 (native)" > debian/source/format; `
	attacks := []string{
		`mkdir -p debian/source; ` + rules + meta + `dpkg-buildpackage -us -uc -b -d`,
		`mkdir -p debian/source; ` + rules + meta + `dpkg-buildpackage --no-sign -b -d`,
	}
	rt60aNeed(t, "dpkg-dev", "dpkg-buildpackage")
	rt60aNeed(t, "make", "make")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"))
	}
	rtAtLeast(t, []string{"bash"}, `mkdir -p debian; `+rules+`make -f debian/rules clean`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `dpkg-buildpackage -us -uc -b`, Escalated)
	rtBelow(t, `mkdir -p debian/source; printf '#!/usr/bin/make -f\n%%:\n\tdh $@\n' > debian/rules; dpkg-buildpackage -us -uc -b -d`, Escalated)
}
