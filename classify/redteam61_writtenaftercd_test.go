package classify

import (
	"strings"
	"testing"
)

// TestRedteam61WrittenFilesAfterCd: the runners that find the files the
// line wrote by their names (pytest and unittest the test files, node
// --test the *.test.js files, terraform the *.tf files) find none once the
// line has gone into a relative directory, though that is where the tool
// looks:
//
//	mkdir t; cd t; printf 'import shutil,os\nshutil.rmtree(os.path.expanduser("~/.ssh"))\n' > test_x.py; pytest      sandboxed
//	(the same) python3 -m pytest -q, python3 -m unittest                                                                 sandboxed
//	mkdir t; cd t; printf 'require("fs").rmSync(require("os").homedir()+"/.ssh",{recursive:true})\n' > x.test.js; node --test   sandboxed
//	mkdir tf; cd tf; (a local-exec of rm -rf ~/.ssh) > main.tf; terraform apply -auto-approve                            sandboxed
//
// remove ~/.ssh, where the same lines without `mkdir t; cd t;` are judged
// (escalated, forbidden).
//
// Why: toolscripts.go:writtenFiles returns the keys of a.files, paths
// already resolved against the directory each file was written in
// ("t/test_x.py"), and writtenRun (like goGenerate and terraform.go's
// walk) hands each to writtenTexts as a relative path, which
// files.go:fileKey resolves against u.cwd a second time ("t/t/test_x.py"):
// no text is found after any cd into a relative directory.
//
// The premise runs each line (but terraform's, not installed here) with
// the real pytest (python3-pytest), unittest and node in a fake home and
// checks that its ~/.ssh is gone, and that the same line with harmless code
// leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed). Found by red-team round 61. Fixed: every user of
// writtenFiles reads a key as it is (writtenkeys.go:keyTexts), and code
// that joins a written file's directory to the names it loads (ruby's
// require_relative, ansible's scripts) takes writtenkeys.go:keyPath,
// the key as a path from u's directory: writtenRun (toolscripts.go),
// terraform.go, ansible.go, rubycode.go, nodeload.go's workspace scripts.
func TestRedteam61WrittenFilesAfterCd(t *testing.T) {
	const py = `import shutil,os\nshutil.rmtree(os.path.expanduser("~/.ssh"))\n`
	const js = `require("fs").rmSync(require("os").homedir()+"/.ssh",{recursive:true})\n`
	attacks := []string{
		`mkdir t; cd t; printf '` + py + `' > test_x.py; pytest`,
		`mkdir t && cd t && printf '` + py + `' > test_x.py && python3 -m pytest -q`,
		`mkdir t; cd t; printf '` + py + `' > test_x.py; python3 -m unittest`,
		`mkdir t; cd t; printf '` + js + `' > x.test.js; node --test`,
	}
	tf := `mkdir tf; cd tf; printf 'resource "null_resource" "x" {\n provisioner "local-exec" {\n command = "rm -rf ~/.ssh"\n }\n}\n' > main.tf; terraform apply -auto-approve`
	rt60aNeed(t, "python3-pytest, nodejs", "pytest", "python3", "node")
	for _, l := range attacks {
		control := strings.ReplaceAll(strings.ReplaceAll(l, `shutil.rmtree(os.path.expanduser("~/.ssh"))`, `print(1)`),
			`require("fs").rmSync(require("os").homedir()+"/.ssh",{recursive:true})`, `console.log(1)`)
		rt60aPremise(t, l, control)
	}
	// References: the same lines without the cd.
	nocd := strings.NewReplacer("mkdir t; cd t; ", "", "mkdir t && cd t && ", "", "mkdir tf; cd tf; ", "")
	for _, l := range append(attacks, tf) {
		rtAtLeast(t, []string{"bash"}, nocd.Replace(l), Escalated)
	}
	// The attack.
	for _, l := range append(attacks, tf) {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday test runs in a subdirectory.
	rtBelow(t, `cd tests && pytest -q`, Escalated)
	rtBelow(t, `mkdir t; cd t; printf 'def test_x():\n    assert 1\n' > test_x.py; pytest`, Escalated)
	rtBelow(t, `cd web && node --test`, Escalated)
}
