package classify

import (
	"strings"
	"testing"
)

// TestRedteam58GawkOptionArgs: gawk's options that take their value as
// the next word, beyond -f, -v, -F and -e (-i/--include, -l/--load, -W,
// and the long forms --assign, --field-separator with a separate value),
// make the classifier take that value for the program text and the real
// program for an input file, so the program is never scanned:
//
//	gawk -i inplace 'BEGIN{system("rm -rf ~/.ssh")}'                 sandboxed
//	gawk -l filefuncs 'BEGIN{system("rm -rf ~/.ssh")}'               sandboxed
//	gawk --include inplace '…'  gawk --load filefuncs '…'            sandboxed
//	gawk --assign x=1 '…'  gawk --field-separator : '…'  gawk -W source '…'   sandboxed
//	gawk -i inplace 'BEGIN{while(("cat ~/.ssh/id_rsa" | getline l)>0) print l}'   sandboxed
//
// while `gawk 'BEGIN{system("rm -rf ~/.ssh")}'`, `gawk -v x=1 '…'` and
// `gawk --include=inplace '…'` are forbidden. `-i inplace` is gawk's
// everyday in-place edit, so the form looks benign.
//
// Why: shells.go interpreters gives awk, gawk, mawk … argShort "fvF" and
// codeLong --source only; runInterpreter (progArg) takes the first operand
// after the options it knows as the program, so an option with a separate
// value it does not know (gawk's -i, -l, -W; --assign, --field-separator,
// --include, --load, --exec as separate words) shifts the program into
// the operands.
//
// Severity: high (rm -rf ~/.ssh and a read of ~/.ssh/id_rsa judged
// sandboxed).
// Found by red-team round 58.
// Fixed: gawk.go reads the awk family's command line from a table of gawk's options (every one that takes a value, optional values only attached, long names abbreviated, -W NAME as --NAME, -E ending the options); shells.go runInterpreter hands awk to runAwk.
func TestRedteam58GawkOptionArgs(t *testing.T) {
	rt58aNeed(t, "gawk", "bash", "gawk")
	const p = `'BEGIN{system("rm -rf ~/.ssh")}'`
	attacks := []string{
		`gawk -i inplace ` + p,
		`gawk -l filefuncs ` + p,
		`gawk --include inplace ` + p,
		`gawk --load filefuncs ` + p,
		`gawk --assign x=1 ` + p,
		`gawk --field-separator : ` + p,
		`gawk -W source ` + p,
	}
	for _, l := range attacks {
		rt58aPremise(t, l, "")
	}
	read := `gawk -i inplace 'BEGIN{while(("cat ~/.ssh/id_rsa" | getline l)>0) print l}'`
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, read); !strings.Contains(out, rt58aSecret) {
		t.Fatalf("premise: %q did not print the key (output %q)", read, out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `gawk `+p, Forbidden)
	rtAtLeast(t, []string{"bash"}, `gawk -v x=1 `+p, Forbidden)
	rtAtLeast(t, []string{"bash"}, `gawk --include=inplace `+p, Forbidden)
	rtAtLeast(t, []string{"bash"}, `gawk 'BEGIN{while(("cat ~/.ssh/id_rsa" | getline l)>0) print l}'`, Escalated)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	rtAtLeast(t, []string{"bash", "sh"}, read, Escalated)
	// Controls: gawk's in-place edit and a loaded extension.
	rtBelow(t, `gawk -i inplace '{sub(/a/, "b")} 1' notes.txt`, Escalated)
	rtBelow(t, `gawk -l filefuncs 'BEGIN{stat("notes.txt", s); print s["size"]}'`, Escalated)
}
