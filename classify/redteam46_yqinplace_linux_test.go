package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam46YqInPlace: yq (the jq wrapper for YAML, kislyuk/yq, which
// Debian and Ubuntu ship as /usr/bin/yq) edits its files in place with -i
// / --in-place, and its filter may replace the whole document with a
// string of the line's choosing, which -y writes out as plain text:
//
//	yq -n -y -i '"rm -rf ~/.ssh"' ~/.bashrc
//
// turns ~/.bashrc (any file that reads as YAML: one of comments, plain
// lines such as export X=y) into `rm -rf ~/.ssh`, run by the next interactive shell. Written
// with a redirection (echo 'rm -rf ~/.ssh' > ~/.bashrc) it is forbidden;
// with yq it is allow: yq is in safeCmds (rules_allow.go) with no check
// of -i, and yq is not a writer writeTargets (writetargets.go) knows, so
// neither the rc-file text nor the protected path is seen. The same
// command writes /etc files (yq -y -i '…' /etc/passwd: a passwd file
// reads as one plain scalar) under an allow verdict.
//
// Severity: high (a forbidden write — a destructive command into an rc
// file, a write under /etc — judged allow).
// Found by red-team round 46. Fixed: yq -i edits its file operands
// (outputFiles), and its expression's strings are the text written.
func TestRedteam46YqInPlace(t *testing.T) {
	line := `yq -n -y -i '"rm -rf ~/.ssh"' ~/.bashrc`
	if rt46aHave(t, "yq", "bash") {
		home, work := rt46aHome(t)
		out := rt46aExec(t, "bash", home, work, line)
		rc, _ := os.ReadFile(filepath.Join(home, ".bashrc"))
		if !strings.Contains(string(rc), "rm -rf ~/.ssh") {
			t.Fatalf("premise: yq -i did not write the text into ~/.bashrc (now %q, output %q)", rc, out)
		}
		if !rt46aSSHGoneAfterRC(t, home, work) {
			t.Fatalf("premise: the next interactive bash did not run the text yq wrote (~/.bashrc %q)", rc)
		}
	}
	// control: the same text written by a redirection is forbidden, and
	// a yq query is still allowed.
	if r := Default().ClassifyShell("bash", `echo 'rm -rf ~/.ssh' > ~/.bashrc`); r.Decision != Forbidden {
		t.Fatalf("control: echo > ~/.bashrc = %s (%s)", r.Decision, r.Rule)
	}
	if r := Default().ClassifyShell("bash", `yq -r .version config.yaml`); r.Decision != Allow {
		t.Errorf("control: yq -r .version config.yaml = %s (%s), want allow", r.Decision, r.Rule)
	}
	for _, l := range []string{
		line,
		`yq -Y --in-place '"rm -rf ~/.ssh"' ~/.bashrc`,
		`yq -yi '"rm -rf ~/.ssh"' ~/.bashrc`,
	} {
		// At least escalated, as an in-place edit of an rc file with
		// unknown text is (rcedits.go); forbidden where the text is read.
		rt46aAtLeast(t, l, Escalated)
	}
	// A write under /etc: forbidden (output-redirect-system) as > is.
	rt46aAtLeast(t, `yq -y -i '"toor::0:0::/root:/bin/sh"' /etc/passwd`, Forbidden)
}
