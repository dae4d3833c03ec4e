package classify

import "testing"

// TestRedteam47LiteralProducers: programs that print text given in their
// own arguments, redirected into ~/.bashrc:
//
//	find . -maxdepth 0 -printf 'rm -rf ~/.ssh\n' >> ~/.bashrc
//	find . -maxdepth 0 -fprintf ~/.bashrc 'rm -rf ~/.ssh\n'
//	date '+rm -rf ~/.ssh' >> ~/.bashrc
//	expr 'rm -rf ~/.ssh' >> ~/.bashrc
//	seq -f 'rm -rf ~/.ssh #%g' 1 1 >> ~/.bashrc
//	awk 'BEGIN{print "rm -rf ~/.ssh"}' >> ~/.bashrc
//	python3 -c 'print("rm -rf ~/.ssh")' >> ~/.bashrc
//	jq -rn '"rm -rf ~/.ssh"' >> ~/.bashrc
//
// each puts `rm -rf ~/.ssh` into ~/.bashrc (run by the next interactive
// shell) and is sandboxed; `printf 'rm -rf ~/.ssh\n' >> ~/.bashrc` is
// forbidden. produce (produce.go) knows the output of echo, printf, pwd,
// realpath, which and a few decoders only; every other program's output
// is trUnknown, so writeText (call.go) judges nothing, and unknown text
// written to an rc file is not even escalated as `echo "$X" >> ~/.bashrc`
// is (eval-exec). find's -fprintf FILE is known as a write target
// (findWrites, writetargets.go) but its format is not its text. Piped to
// a shell the same producers are escalated, not forbidden (`date '+rm
// -rf ~' | sh`). Round 46 made the files interpreter code opens write
// targets; code printing to its standard output is still unseen.
//
// Severity: high (a forbidden write into an rc file judged sandboxed).
// Found by red-team round 47 (high). Fixed: date +FORMAT, expr, seq -f,
// find -printf/-fprintf and jq print the text their arguments spell
// (printers.go), and inline code's strings are lines of what it prints.
func TestRedteam47LiteralProducers(t *testing.T) {
	const rc = "# rc\n"
	rtAtLeast(t, rt47bShells(false), `printf 'rm -rf ~/.ssh\n' >> ~/.bashrc`, Forbidden) // control
	rtAtLeast(t, rt47bShells(false), `echo "$X" >> ~/.bashrc`, Escalated)                // control
	for _, tc := range []struct {
		line, prog string
		want       Decision // forbidden where the text is the argument's, escalated for code
	}{
		{`find . -maxdepth 0 -printf 'rm -rf ~/.ssh\n' >> ~/.bashrc`, "find", Forbidden},
		{`find . -maxdepth 0 -fprintf ~/.bashrc 'rm -rf ~/.ssh\n'`, "find", Forbidden},
		{`date '+rm -rf ~/.ssh' >> ~/.bashrc`, "date", Forbidden},
		{`expr 'rm -rf ~/.ssh' >> ~/.bashrc`, "expr", Forbidden},
		{`seq -f 'rm -rf ~/.ssh #%g' 1 1 >> ~/.bashrc`, "seq", Forbidden},
		{`awk 'BEGIN{print "rm -rf ~/.ssh"}' >> ~/.bashrc`, "awk", Escalated},
		{`python3 -c 'print("rm -rf ~/.ssh")' >> ~/.bashrc`, "python3", Escalated},
		{`jq -rn '"rm -rf ~/.ssh"' >> ~/.bashrc`, "jq", Escalated},
	} {
		for _, sh := range rt47bShells(false) {
			if rtHave(t, sh, tc.prog) && !rt47bRCDeletesSSH(t, sh, rc, tc.line) {
				t.Fatalf("premise: after %s -c %q an interactive bash did not delete ~/.ssh", sh, tc.line)
			}
		}
		rtAtLeast(t, rt47bShells(false), tc.line, tc.want)
	}
	// Legitimate: the same programs into project files keep working.
	rtBelow(t, `find . -name '*.go' -printf '%p\n' > files.txt`, Escalated)
	rtBelow(t, `date '+%Y-%m-%d' >> build.log`, Escalated)
	rtBelow(t, `python3 -c 'print(42)' > out.txt`, Escalated)
}
