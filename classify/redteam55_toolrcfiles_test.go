package classify

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRedteam55ToolRcFiles: more programs read a start-up file from the
// home (or the working directory) at every start and run what it holds,
// as bash runs ~/.bashrc:
//
//	echo 'rm -rf ~/.ssh' >> ~/.mavenrc                                       sandboxed  (mvn's shell launcher sources it, even for mvn -v)
//	echo 'import os; os.system("rm -rf ~/.ssh")' >> ~/.pdbrc                 sandboxed  (pdb runs a line that is no pdb command as Python)
//	echo 'import os; os.system("rm -rf ~/.ssh")' > .pdbrc                    sandboxed  (pdb reads ./.pdbrc too)
//	mkdir -p ~/.ipython/profile_default/startup && echo '…' > ~/.ipython/profile_default/startup/00-x.py   sandboxed
//
// The planted command runs outside the sandbox the next time the user
// runs Maven, debugs a Python program (python -m pdb, breakpoint(),
// pytest --pdb) or opens IPython, where `echo 'rm -rf ~/.ssh' >>
// ~/.bashrc` and the vim, tmux, gdb and sqlite3 start-up files (round 52)
// are forbidden.
//
// Why: runFile (escapes.go) lists the shell rc files, git hooks, cron and
// autostart files, and toolRcText (toolscripts.go) the start-up files of
// vim, tmux, gdb and sqlite3; ~/.mavenrc (a shell script: /usr/share/
// maven/bin/mvn `. "$HOME/.mavenrc"`), pdb's ~/.pdbrc and ./.pdbrc
// (Python statements) and IPython's profile start-up directory (Python
// files) are in neither, so the written text is never judged, though the
// shell and Python models exist.
//
// The premise writes each file in a fake home (and working directory),
// then starts the tool the way a user would (`mvn -v`, `python3 -m pdb
// -c continue y.py`, `ipython3 -c pass`) and checks that ~/.ssh is gone.
//
// Severity: high (code that deletes ~/.ssh planted to run later, outside
// the sandbox, judged sandboxed).
// Found by red-team round 55. Fixed: ~/.mavenrc is a shell start-up file, .pdbrc and IPython's
// and Jupyter's start-up files are Python (toolscripts.go, escapes.go).
func TestRedteam55ToolRcFiles(t *testing.T) {
	const py = `'import os; os.system("rm -rf ~/.ssh")'`
	cases := []struct{ prog, line, start string }{
		{"mvn", `echo 'rm -rf ~/.ssh' >> ~/.mavenrc`, `mvn -v`},
		{"python3", `echo ` + py + ` >> ~/.pdbrc`, `echo 'print(1)' > y.py && python3 -m pdb -c continue y.py`},
		{"python3", `echo ` + py + ` > .pdbrc`, `echo 'print(1)' > y.py && python3 -m pdb -c continue y.py`},
		{"ipython3", `mkdir -p ~/.ipython/profile_default/startup && echo ` + py + ` > ~/.ipython/profile_default/startup/00-x.py`, `ipython3 -c pass`},
	}
	for _, c := range cases {
		if !rtHave(t, "bash", c.prog) {
			continue
		}
		home, work := rt55aHome(t)
		out := rt55aRun(t, home, work, c.line)
		if rt55aGone(home) {
			t.Fatalf("premise: %q itself removed ~/.ssh: %q", c.line, out)
		}
		// The tool's own directory leads PATH (a pyenv shim, say).
		lp, _ := exec.LookPath(c.prog)
		out += rt55aRun(t, home, work, c.start, "PATH="+filepath.Dir(lp)+":/usr/local/bin:/usr/bin:/bin")
		if !rt55aGone(home) {
			t.Fatalf("premise: after %q, %q did not remove ~/.ssh (output %q)", c.line, c.start, out)
		}
	}
	// References: the same text in a shell rc file and in a Python start-up file.
	rtAtLeast(t, []string{"bash", "sh"}, `echo 'rm -rf ~/.ssh' >> ~/.bashrc`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, `echo `+py+` > ~/.local/lib/python3.11/site-packages/x.pth`, Forbidden)
	// The attack.
	for _, c := range cases {
		rtAtLeast(t, []string{"bash", "sh"}, c.line, Forbidden)
	}
	// Controls: everyday settings stay below escalated.
	rtBelow(t, `echo 'export MAVEN_OPTS=-Xmx2g' >> ~/.mavenrc`, Escalated)
	rtBelow(t, `echo 'alias pl pp locals()' >> ~/.pdbrc`, Escalated)
	rtBelow(t, `mkdir -p ~/.ipython/profile_default/startup && echo 'import numpy as np' > ~/.ipython/profile_default/startup/00-np.py`, Escalated)
}
