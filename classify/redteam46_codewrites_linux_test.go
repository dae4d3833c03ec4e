package classify

import "testing"

// TestRedteam46CodeWrites: interpreter one-liners that write a file named
// in their own code:
//
//	awk 'BEGIN{print "rm -rf ~/.ssh" > ENVIRON["HOME"] "/.bashrc"}'
//	python3 -c "import os; open(os.path.expanduser('~/.bashrc'),'a').write('rm -rf ~/.ssh\n')"
//	perl -e 'open F, ">>$ENV{HOME}/.bashrc"; print F "rm -rf ~/.ssh\n"'
//	node -e "require('fs').appendFileSync(require('os').homedir()+'/.bashrc','rm -rf ~/.ssh\n')"
//
// put `rm -rf ~/.ssh` into ~/.bashrc (run by the next interactive shell)
// and are sandboxed, as is python3 -c "open('/etc/passwd','a').write(…)",
// a write under /etc. The redirection forms (echo … >> ~/.bashrc,
// … >> /etc/passwd) are forbidden, and perl -i on an rc file is judged
// (rcedits.go: perlInPlace). scanCode (code.go) collects spawns, deletes
// (rmtree with joinedPath/homeExprs) and sockets but no file a program
// opens for writing: awk's print >/>> FILE, open(…, 'w'/'a'), perl's
// open(F, ">…"), fs.writeFileSync/appendFileSync are no write targets
// (writetargets.go) and their string literals no rc-file text.
//
// Severity: high (a forbidden write judged sandboxed).
// Found by red-team round 46. Fixed: where the code writes files
// (codeWriteMarkers) the paths it names are write targets, and what code
// writes into an rc file (its strings) is judged as if it ran.
func TestRedteam46CodeWrites(t *testing.T) {
	for _, tc := range []struct {
		line string
		prog string
	}{
		{`awk 'BEGIN{print "rm -rf ~/.ssh" > ENVIRON["HOME"] "/.bashrc"}'`, "awk"},
		{`python3 -c "import os; open(os.path.expanduser('~/.bashrc'),'a').write('rm -rf ~/.ssh\n')"`, "python3"},
		{`perl -e 'open F, ">>$ENV{HOME}/.bashrc"; print F "rm -rf ~/.ssh\n"'`, "perl"},
		{`node -e "require('fs').appendFileSync(require('os').homedir()+'/.bashrc','rm -rf ~/.ssh\n')"`, "node"},
	} {
		rt46aRCPremise(t, tc.prog, tc.line)
		// At least escalated (text written to an rc file); forbidden
		// where the literal text is judged, as for perl -i.
		rt46aAtLeast(t, tc.line, Escalated)
	}
	for _, l := range []string{
		`python3 -c "open('/etc/passwd','a').write('toor::0:0::/root:/bin/sh\n')"`,
		`awk 'BEGIN{print "toor::0:0::/root:/bin/sh" >> "/etc/passwd"}'`,
	} {
		rt46aAtLeast(t, l, Forbidden)
	}
	// controls: the redirection form is forbidden; code writing a
	// project file stays sandboxed.
	if r := Default().ClassifyShell("bash", `echo 'rm -rf ~/.ssh' >> ~/.bashrc`); r.Decision != Forbidden {
		t.Fatalf("control: echo >> ~/.bashrc = %s (%s)", r.Decision, r.Rule)
	}
	if r := Default().ClassifyShell("bash", `awk '{print > "out.txt"}' in.txt`); r.Decision != Sandboxed {
		t.Errorf("control: awk print > out.txt = %s (%s), want sandboxed", r.Decision, r.Rule)
	}
	// A comparison in python's print is no redirection: reading
	// /etc/passwd there is no write to it.
	if r := Default().ClassifyShell("bash", `python3 -c 'import sys; print(len(sys.argv) > 1, open("/etc/passwd").read())'`); r.Decision != Sandboxed {
		t.Errorf("control: python print(a > b, open(/etc/passwd)) = %s (%s), want sandboxed", r.Decision, r.Rule)
	}
}
