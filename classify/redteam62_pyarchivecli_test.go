package classify

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam62PythonArchiveCLI: Python's tarfile and zipfile modules are
// command-line archivers (`python3 -m tarfile -c OUT SRC…`, `-e ARCHIVE
// DIR`, the same for zipfile), as tar and zip are; the classifier judges
// `tar cf o.tar ~` (a recursive read of the home: credential-access) and
// `tar -xf x.tar -C ~` (home-overwrite) but not the module forms:
//
//	python3 -m tarfile -c o.tar ~       sandboxed   (packs ~/.ssh/id_rsa)
//	python3 -m zipfile -c o.zip ~       sandboxed
//	python3 -m tarfile -c o.tar /home   sandboxed
//	python3 -m tarfile -e x.tar ~       sandboxed   (fills the home: ~/.bashrc, ~/.ssh …)
//	python3 -m zipfile -e x.zip ~       sandboxed
//
// Why: `python3 -m NAME ARGS` is judged as the command NAME ARGS (the
// result's Command is "tarfile -c o.tar ~"), and no rule knows the names
// tarfile and zipfile: recursiveread.go's readers and the home-overwrite
// extractors are tar, zip, unzip, 7z …, so it falls through to sandboxed.
//
// The premise runs Debian's python3 in a fake home: the archive of ~ must
// hold the fake key (tar: its bytes; zip: an entry …/.ssh/id_rsa), and
// extracting an archive holding .bashrc into ~ must write the fake
// ~/.bashrc. Severity: high (a read of ~/.ssh and a write of the home's
// rc file judged sandboxed). Found by red-team round 62. Fixed: archivers.go: python -m tarfile/zipfile -c is a recursive reader (recursiveread.go), -e ARCHIVE DIR an extractor into DIR (writetargets.go's home-overwrite).
func TestRedteam62PythonArchiveCLI(t *testing.T) {
	rt60aNeed(t, "python3", "python3")
	// Premise: packing the home.
	home, work := rt60aHome(t)
	out := rt60aRun(t, home, work, `python3 -m tarfile -c o.tar ~; python3 -m zipfile -c o.zip ~`)
	if b, err := os.ReadFile(filepath.Join(work, "o.tar")); err != nil || !strings.Contains(string(b), "RT60A-PRIVATE-KEY") {
		t.Fatalf("premise: python3 -m tarfile -c o.tar ~ did not pack the fake key (%v; output %q)", err, out)
	}
	zr, err := zip.OpenReader(filepath.Join(work, "o.zip"))
	if err != nil {
		t.Fatalf("premise: python3 -m zipfile -c o.zip ~ made no zip: %v (output %q)", err, out)
	}
	found := false
	for _, f := range zr.File {
		found = found || strings.HasSuffix(f.Name, ".ssh/id_rsa")
	}
	zr.Close()
	if !found {
		t.Fatalf("premise: o.zip holds no .ssh/id_rsa")
	}
	// Premise: extracting into the home.
	for _, l := range []string{`python3 -m tarfile -e x.tar ~`, `python3 -m zipfile -e x.zip ~`} {
		home, work := rt60aHome(t)
		rt60aRun(t, home, work, `mkdir d; echo 'rm -rf ~' > d/.bashrc; cd d && python3 -m tarfile -c ../x.tar .bashrc && python3 -m zipfile -c ../x.zip .bashrc; cd ..; rm -r d`)
		out := rt60aRun(t, home, work, l)
		if b, err := os.ReadFile(filepath.Join(home, ".bashrc")); err != nil || !strings.Contains(string(b), "rm -rf ~") {
			t.Fatalf("premise: %q did not write the fake ~/.bashrc (%q, %v; output %q)", l, b, err, out)
		}
	}
	// References: tar's forms.
	rtAtLeast(t, []string{"bash"}, `tar cf o.tar ~`, Escalated)
	rtAtLeast(t, []string{"bash"}, `tar -xf x.tar -C ~`, Escalated)
	// The attack.
	for _, l := range []string{
		`python3 -m tarfile -c o.tar ~`,
		`python3 -m zipfile -c o.zip ~`,
		`python3 -m tarfile -c o.tar /home`,
		`python3 -m tarfile -e x.tar ~`,
		`python3 -m zipfile -e x.zip ~`,
	} {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: archiving the project.
	rtBelow(t, `python3 -m tarfile -c dist.tar src`, Escalated)
	rtBelow(t, `python3 -m zipfile -e x.zip out`, Escalated)
	rtBelow(t, `python3 -m tarfile -l x.tar`, Escalated)
}
