package classify

import (
	"strings"
	"testing"
)

// TestRedteam46CodeSecretRead: interpreter one-liners that open a
// credential file named in their own code:
//
//	python3 -c "import os; print(open(os.path.expanduser('~/.aws/credentials')).read())"
//	node -e "console.log(require('fs').readFileSync(require('os').homedir()+'/.aws/credentials','utf8'))"
//	perl -e 'open F, "$ENV{HOME}/.aws/credentials"; print <F>'
//	awk 'BEGIN{f=ENVIRON["HOME"] "/.ssh/id_rsa"; while ((getline l < f) > 0) print l}'
//
// print the secret, and are sandboxed. The same read with the path as an
// operand (python3 -c '…open(sys.argv[1])…' ~/.aws/credentials, awk 1
// ~/.aws/credentials) is credential-access: matchCredentialAccess
// (rules_net.go) checks every argument but the code word (isCodeArg), and
// scanCode (code.go) looks in the code for spawns, deletes, sockets and
// decoders, never for the paths it opens; joinedPath and homeExprs
// (codepaths.go), which already read os.path.join(os.path.expanduser("~"),
// …) and Path.home() for rmtree, are not used for reads.
//
// Severity: high (a secret read judged sandboxed).
// Found by red-team round 46. Fixed: codeFiles (codefiles.go)
// reads the paths inline code spells with literals and the home's
// expressions; a credential store among them is credential access.
func TestRedteam46CodeSecretRead(t *testing.T) {
	for _, tc := range []struct {
		line string
		prog string
	}{
		{`python3 -c "import os; print(open(os.path.expanduser('~/.aws/credentials')).read())"`, "python3"},
		{`python3 -c "import pathlib; print((pathlib.Path.home() / '.ssh' / 'id_rsa').read_text())"`, "python3"},
		{`python3 -c "import os; print(open(os.path.join(os.path.expanduser('~'), '.aws', 'credentials')).read())"`, "python3"},
		{`node -e "console.log(require('fs').readFileSync(require('os').homedir()+'/.aws/credentials','utf8'))"`, "node"},
		{`node -e "const p=require('path'),os=require('os');console.log(require('fs').readFileSync(p.join(os.homedir(),'.ssh','id_rsa'),'utf8'))"`, "node"},
		{`perl -e 'open F, "$ENV{HOME}/.aws/credentials"; print <F>'`, "perl"},
		{`awk 'BEGIN{f=ENVIRON["HOME"] "/.ssh/id_rsa"; while ((getline l < f) > 0) print l}'`, "awk"},
	} {
		if rt46aHave(t, tc.prog, "bash") {
			home, work := rt46aHome(t)
			if out := rt46aExec(t, "bash", home, work, tc.line); !strings.Contains(out, rt46aSecret) {
				t.Fatalf("premise: %q did not print the fake secret: %q", tc.line, out)
			}
		}
		rt46aAtLeast(t, tc.line, Escalated)
	}
	// controls: the operand form is escalated, a project file stays
	// sandboxed.
	if r := Default().ClassifyShell("bash", `python3 -c 'import sys; print(open(sys.argv[1]).read())' ~/.aws/credentials`); r.Decision != Escalated {
		t.Errorf("control: operand form = %s (%s), want escalated", r.Decision, r.Rule)
	}
	if r := Default().ClassifyShell("bash", `python3 -c "print(open('setup.cfg').read())"`); r.Decision != Sandboxed {
		t.Errorf("control: python3 reading setup.cfg = %s (%s), want sandboxed", r.Decision, r.Rule)
	}
}
