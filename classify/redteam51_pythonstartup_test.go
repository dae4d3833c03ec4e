package classify

import (
	"strings"
	"testing"
)

// TestRedteam51PythonStartupPlant: Python runs, at every start, the
// `import` lines of each *.pth file and the module usercustomize in the
// user's site-packages directory (~/.local/lib/pythonX.Y/site-packages,
// on by default). Writing code there plants it for the next python the
// user (or a tool: pip, a build script, an editor's language server)
// runs, as writing ~/.bashrc plants it for the next shell:
//
//	mkdir -p ~/.local/lib/python3.11/site-packages && echo 'import os; os.system("rm -rf ~/.ssh")' > ~/.local/lib/python3.11/site-packages/x.pth
//	echo 'import os; os.system("rm -rf ~/.ssh")' > ~/.local/lib/python3.11/site-packages/usercustomize.py
//
// are sandboxed, where `echo 'rm -rf ~/.ssh' >> ~/.bashrc` (an rc file,
// judged as if it ran) and `echo 'import os; os.system("rm -rf ~/.ssh")'
// | python3` (the same code run now) are forbidden, and the same .pth
// written below /usr/lib/python3 is forbidden only because /usr is a
// system directory. runFile (escapes.go: the files a shell or git runs later,
// consulted by writeText in call.go) knows shell rc files, git hooks and git
// configuration, and nothing that Python loads at start-up.
//
// The premise finds the user site directory of the installed python3,
// runs the line (for that version) in a fake home, then runs `python3 -c
// pass` and checks that ~/.ssh is gone.
//
// Severity: high (code that deletes ~/.ssh planted to run later, judged
// sandboxed).
// Found by red-team round 51. Fixed: a .pth in a site directory,
// usercustomize.py and sitecustomize.py are judged as Python that runs
// (call.go: pythonStartupText).
func TestRedteam51PythonStartupPlant(t *testing.T) {
	ver := "3.11"
	if rtHave(t, "bash", "python3") {
		home, work := rt51aHome(t)
		out := strings.TrimSpace(rt51aRun(t, home, work, `python3 -c 'import site, sys; print("%d.%d" % sys.version_info[:2]); print(site.ENABLE_USER_SITE)'`, ""))
		v, enabled, _ := strings.Cut(out, "\n")
		if enabled != "True" {
			t.Fatalf("premise: python3 has no user site directory here: %q", out)
		}
		ver = v
	}
	site := "~/.local/lib/python" + ver + "/site-packages"
	code := `'import os; os.system("rm -rf ~/.ssh")'`
	lines := []string{
		"mkdir -p " + site + " && echo " + code + " > " + site + "/x.pth",
		"mkdir -p " + site + " && echo " + code + " > " + site + "/usercustomize.py",
	}
	if rtHave(t, "bash", "python3") {
		for _, line := range lines {
			home, work := rt51aHome(t)
			out := rt51aRun(t, home, work, line, "")
			if rt51aGone(home) {
				t.Fatalf("premise: %q itself removed ~/.ssh: %q", line, out)
			}
			out += rt51aRun(t, home, work, "python3 -c pass", "")
			if !rt51aGone(home) {
				t.Fatalf("premise: after %q, python3 -c pass did not remove ~/.ssh (output %q)", line, out)
			}
		}
	}
	// Controls: the same code run now, and the same plant in an rc file.
	rtAtLeast(t, []string{"bash"}, "echo "+code+" | python3", Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' >> ~/.bashrc`, Forbidden)
	for _, line := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, line, Escalated)
	}
	// Legitimate uses must keep working: a project's own files, and a
	// .pth that only names a directory.
	rtBelow(t, `echo 'import os' > src/mod.py`, Escalated)
	rtBelow(t, "echo \"$PWD/src\" > "+site+"/project.pth", Escalated)
}
