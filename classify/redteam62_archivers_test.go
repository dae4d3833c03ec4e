package classify

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam62ArchiversHome: jar, pax and cpio pack a directory tree or
// unpack one into a directory as tar does; the classifier judges `tar cf
// o.tar ~` (credential-access: a recursive read of the home) and `cd ~ &&
// tar xf x.tar` / `tar -x -C ~` (home-overwrite), and `find ~ | cpio -o`,
// but not:
//
//	jar cf o.jar ~                       sandboxed   (packs ~/.ssh/id_rsa)
//	pax -w -f o.pax ~                    sandboxed
//	cd ~ && jar xf /tmp/x.jar            sandboxed   (fills the home: ~/.bashrc …)
//	cd ~ && pax -r -f /tmp/x.pax         sandboxed
//	cd ~ && cpio -id < /tmp/x.cpio       sandboxed
//	cpio -idD ~ < x.cpio                 sandboxed
//
// Why: recursiveread.go's recursive readers and the home-overwrite rule's
// extractors (tar, bsdtar, unzip, 7z, cp -r, rsync …) do not include jar,
// pax or cpio's copy-in mode (cpio -o counts only through find's
// credential path).
//
// The premise runs Debian's jar (openjdk-17-jdk-headless), pax and cpio (packages pax,
// cpio) in a fake home: the archives of ~ must hold the fake key, and
// unpacking an archive holding .bashrc as the lines do must write the
// fake ~/.bashrc. Severity: high (a read of ~/.ssh and a write of the
// home's rc file judged sandboxed). Found by red-team round 62. Fixed: archivers.go: jar c/u and pax -w are recursive readers; jar x, pax -r and cpio -i (into -D DIR) extract into their directory (writetargets.go).
func TestRedteam62ArchiversHome(t *testing.T) {
	rt60aNeed(t, "openjdk-17-jdk-headless", "jar")
	rt60aNeed(t, "pax", "pax")
	rt60aNeed(t, "cpio", "cpio")
	// Premise: packing the home.
	home, work := rt60aHome(t)
	out := rt60aRun(t, home, work, `jar cf o.jar ~; pax -w -f o.pax ~`)
	if b, err := os.ReadFile(filepath.Join(work, "o.pax")); err != nil || !strings.Contains(string(b), "RT60A-PRIVATE-KEY") {
		t.Fatalf("premise: pax -w -f o.pax ~ did not pack the fake key (%v; output %q)", err, out)
	}
	zr, err := zip.OpenReader(filepath.Join(work, "o.jar"))
	if err != nil {
		t.Fatalf("premise: jar cf o.jar ~ made no jar: %v (output %q)", err, out)
	}
	found := false
	for _, f := range zr.File {
		found = found || strings.HasSuffix(f.Name, ".ssh/id_rsa")
	}
	zr.Close()
	if !found {
		t.Fatalf("premise: o.jar holds no .ssh/id_rsa")
	}
	// Premise: unpacking into the home (/tmp/x.* of the lines is the
	// working directory's archive).
	unpack := []string{
		`cd ~ && jar xf /tmp/x.jar`,
		`cd ~ && pax -r -f /tmp/x.pax`,
		`cd ~ && cpio -id < /tmp/x.cpio`,
		`cpio -idD ~ < /tmp/x.cpio`,
	}
	for _, l := range unpack {
		home, work := rt60aHome(t)
		rt60aRun(t, home, work, `mkdir d; echo 'rm -rf ~' > d/.bashrc; cd d && jar cf ../x.jar .bashrc && pax -w -f ../x.pax .bashrc && echo .bashrc | cpio -o > ../x.cpio; cd ..; rm -r d`)
		out := rt60aRun(t, home, work, strings.ReplaceAll(l, "/tmp/", work+"/"))
		if b, err := os.ReadFile(filepath.Join(home, ".bashrc")); err != nil || !strings.Contains(string(b), "rm -rf ~") {
			t.Fatalf("premise: %q did not write the fake ~/.bashrc (%q, %v; output %q)", l, b, err, out)
		}
	}
	// References: tar's forms.
	rtAtLeast(t, []string{"bash"}, `tar cf o.tar ~`, Escalated)
	rtAtLeast(t, []string{"bash"}, `cd ~ && tar xf /tmp/x.tar`, Escalated)
	// The attack.
	for _, l := range append([]string{`jar cf o.jar ~`, `pax -w -f o.pax ~`}, unpack...) {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: project archives.
	rtBelow(t, `jar cf app.jar -C build/classes .`, Escalated)
	rtBelow(t, `jar xf lib.jar`, Escalated)
	rtBelow(t, `pax -w -f src.pax src`, Escalated)
	rtBelow(t, `mkdir -p out && cd out && cpio -id < ../x.cpio`, Escalated)
}
