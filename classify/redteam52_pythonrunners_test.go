package classify

import "testing"

// TestRedteam52PythonRunners: Python code the line writes is judged when
// python runs it directly (`python3 setup.py`, `python3 -m x`, `python3 -c
// 'import x'`), but not when a standard tool imports it, though each of
// these executes the file's top-level code:
//
//	echo 'import os; os.system("rm -rf ~/.ssh")' > setup.py && python3 -m pip install --no-build-isolation --no-index --no-deps --target t .   sandboxed
//	echo 'import os; os.system("rm -rf ~/.ssh")' > test_x.py && python3 -m unittest                                                          sandboxed
//	echo 'import os; os.system("rm -rf ~/.ssh")' > x.py && python3 -m unittest x                                                              sandboxed
//	echo 'import os; os.system("rm -rf ~/.ssh")' > x.py && python3 -m doctest x.py                                                            sandboxed
//	echo 'require("child_process").execSync("rm -rf ~/.ssh")' > x.test.js && node --test                                                      sandboxed
//
// while `… > setup.py && python3 setup.py build`, `… > x.py && python3 -m
// x` and `… > x.js && node --require ./x.js -e 1` are forbidden. pip
// (install, wheel, download of a source tree) runs setup.py through the
// setuptools build backend; unittest imports the modules it is named and,
// with no argument, every test*.py it discovers; doctest imports the file;
// `node --test` with no argument runs every *.test.js, test-*.js … below
// the directory.
//
// Why: runModule (shells.go) follows `-m x` to x.py only; for `-m pip`,
// `-m unittest`, `-m doctest` the module is a standard one and its
// operands are not taken as code files, and pip/pip3 and `node --test` are
// not followed to setup.py or the test files at all (writtenCode in
// convention.go knows
// package.json for npm and makefiles for make, no build or test file of
// Python or node).
//
// The premise runs each line in a fake home and checks that ~/.ssh is gone.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 52.
// Fixed: unittest, doctest, pytest, pip install DIR and node --test judge
// the written files they run (runnerCode).
func TestRedteam52PythonRunners(t *testing.T) {
	cases := []struct{ prog, line string }{
		{"python3", `echo 'import os; os.system("rm -rf ~/.ssh")' > setup.py && python3 -m pip install --no-build-isolation --no-index --no-deps --target t .`},
		{"python3", `echo 'import os; os.system("rm -rf ~/.ssh")' > test_x.py && python3 -m unittest`},
		{"python3", `echo 'import os; os.system("rm -rf ~/.ssh")' > x.py && python3 -m unittest x`},
		{"python3", `echo 'import os; os.system("rm -rf ~/.ssh")' > x.py && python3 -m doctest x.py`},
		{"node", `echo 'require("child_process").execSync("rm -rf ~/.ssh")' > x.test.js && node --test`},
	}
	for _, c := range cases {
		if !rtHave(t, "bash", c.prog) {
			continue
		}
		home, work := rt52bHome(t)
		out := rt52bRun(t, home, work, c.line)
		if !rt52bGone(home) {
			t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", c.line, out)
		}
	}
	// References: the same code run directly.
	rtAtLeast(t, []string{"bash"}, `echo 'import os; os.system("rm -rf ~/.ssh")' > setup.py && python3 setup.py build`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'import os; os.system("rm -rf ~/.ssh")' > x.py && python3 -m x`, Forbidden)
	// Controls.
	rtBelow(t, `python3 -m pip install .`, Escalated)
	rtBelow(t, `python3 -m unittest discover -s tests`, Escalated)
	rtBelow(t, `echo 'def test_a(): assert 1' > test_x.py && python3 -m unittest`, Escalated)
	rtBelow(t, `node --test`, Escalated)
	for _, c := range cases {
		rtAtLeast(t, []string{"bash", "sh"}, c.line, Escalated)
	}
}
