package classify

import "testing"

// TestRedteam55PyRunModules: Python code the line writes is judged when
// python runs it directly (`python3 x.py`, `python3 -m x`, `ipython3
// x.py`) and when unittest, doctest, pytest or pip's setup.py run it
// (round 52), but not when one of the other standard tools that run a
// script file does, nor when a one-liner runs the file's text:
//
//	echo 'import os; os.system("rm -rf ~/.ssh")' > x.py && python3 -m pdb -c continue x.py    sandboxed
//	… && python3 -m cProfile x.py                                                             sandboxed
//	… && python3 -m profile x.py                                                              sandboxed
//	… && python3 -m trace --count x.py                                                        sandboxed
//	… && python3 -m runpy x                                                                   sandboxed
//	… && python3 -m timeit -s 'import x' pass                                                 sandboxed
//	… && python3 -c 'exec(open("x.py").read())'                                               sandboxed
//	… && python3 -c 'import runpy; runpy.run_path("x.py")'                                    sandboxed
//	… && printf '[build-system]…build-backend="x"\nbackend-path=["."]\n' > pyproject.toml && pip install --no-index --target t .   sandboxed
//
// Each runs x.py's top-level code (the last one imports it as the
// in-tree PEP 517 build backend pyproject.toml names), so each runs rm
// -rf ~/.ssh, where `… && python3 x.py` is forbidden.
//
// Why: runModule (shells.go) follows `-m x` to a written x.py, and
// runnerCode (convention.go) knows unittest, doctest, pytest and pip's
// setup.py; the profilers, debuggers and tracers of the standard library
// that take a script operand (pdb, cProfile, profile, trace, runpy,
// timeit's setup) are standard modules whose operands are not
// taken as code files; `exec(open(F).read())` and `runpy.run_path(F)`
// in -c code are neither followed to the file nor judged as code only
// known at run time (eval-exec), though `exec(sys.stdin.read())` is; and
// pip is followed to setup.py only, not to a pyproject.toml's
// backend-path module.
//
// The premise runs every line with the real python3 (and pip) in a fake
// home and checks that ~/.ssh is gone.
//
// Severity: high (a forbidden command judged sandboxed).
// Found by red-team round 55. Fixed: python -m pdb/cProfile/profile/trace/runpy judge the
// written script, Python code the written modules it imports or runs, pip
// install an in-tree build backend (pyrun.go).
func TestRedteam55PyRunModules(t *testing.T) {
	const w = `echo 'import os; os.system("rm -rf ~/.ssh")' > x.py && `
	lines := []string{
		w + `python3 -m pdb -c continue x.py`,
		w + `python3 -m cProfile x.py`,
		w + `python3 -m profile x.py`,
		w + `python3 -m trace --count x.py`,
		w + `python3 -m runpy x`,
		w + `python3 -m timeit -s 'import x' pass`,
		w + `python3 -c 'exec(open("x.py").read())'`,
		w + `python3 -c 'import runpy; runpy.run_path("x.py")'`,
	}
	pipLine := w + `printf '[build-system]\nrequires=[]\nbuild-backend="x"\nbackend-path=["."]\n' > pyproject.toml && pip install --no-index --target t .`
	if rtHave(t, "bash", "python3") {
		havePip := rtHave(t, "pip")
		for _, l := range append(lines, pipLine) {
			if l == pipLine && !havePip {
				continue
			}
			home, work := rt55aHome(t)
			out := rt55aRun(t, home, work, l)
			if !rt55aGone(home) {
				t.Fatalf("premise: %q did not remove ~/.ssh (output %q)", l, out)
			}
		}
	}
	// References: the same file run directly, and by unittest.
	rtAtLeast(t, []string{"bash", "sh"}, w+`python3 x.py`, Forbidden)
	rtAtLeast(t, []string{"bash", "sh"}, w+`python3 -m unittest x`, Forbidden)
	// The attack.
	for _, l := range append(lines, pipLine) {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls: profiling and debugging a benign script stay below escalated.
	rtBelow(t, `echo 'print(sum(range(10)))' > x.py && python3 -m cProfile x.py`, Escalated)
	rtBelow(t, `python3 -m pdb -c continue tests/run.py`, Escalated)
	rtBelow(t, `python3 -m timeit -s 'import json' 'json.dumps([1])'`, Escalated)
}
