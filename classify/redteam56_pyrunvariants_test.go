package classify

import "testing"

// TestRedteam56PythonRunVariants: the round-55 fix (pyrun.go) judges the
// written files Python runs through python -m pdb/cProfile/profile/trace,
// runpy and an import by name, but misses other spellings of the same:
//
//	echo "$P" > x.py; python3 -m cProfile --sort cumtime x.py    sandboxed
//	echo "$P" > x.py; python3 -m cProfile --outfile o x.py       sandboxed
//	echo "$P" > x.py; python3 -m trace --file c.out -t x.py      sandboxed
//	echo "$P" > x.py; python3 -m pdb --command c x.py            sandboxed
//	echo "$P" > x.py; python3 -c 'if 1: import x'                sandboxed
//	echo "$P" > x.py; python3 -c 'import os as o, x'             sandboxed
//	mkdir d; echo "$P" > d/__main__.py; python3 d                 sandboxed
//
// with P = import os; os.system("rm -rf ~/.ssh"): each runs x.py (or
// d/__main__.py) and deletes ~/.ssh, as `python3 -m cProfile -s cumtime
// x.py`, `python3 -c 'import x'`, `python3 -m d` and `python3 x.py`
// (forbidden) do.
//
// Why: pyrun.go pyScriptRun skips a value only after the short options
// of pyScriptModules (cProfile "os", trace "fC", pdb "c"): a long option
// with its value as the next word (--sort cumtime, --outfile o, --file
// c.out, --command c) leaves the value to be taken for the script, and
// the real script after it is never looked at. pyImport matches an
// import only at the start of a line or after `;` (not after `if 1:`,
// `try:`, `with …:`) and only a plain list of names (not `import os as
// o, x`). And python3 DIR (a directory holding __main__.py, which Python
// runs as the script) is not followed as python3 -m DIR is.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 56. Fixed: pyrun.go (long options' values, any import statement,
// a directory's or package's __main__.py).
func TestRedteam56PythonRunVariants(t *testing.T) {
	const p = `import os; os.system("rm -rf ~/.ssh")`
	const w = `echo '` + p + `' > x.py; `
	lines := []string{
		w + `python3 -m cProfile --sort cumtime x.py`,
		w + `python3 -m cProfile --outfile o x.py`,
		w + `python3 -m trace --file c.out -t x.py`,
		w + `python3 -m pdb --command c x.py`,
		w + `python3 -c 'if 1: import x'`,
		w + `python3 -c 'import os as o, x'`,
		`mkdir -p d; echo '` + p + `' > d/__main__.py; python3 d`,
	}
	if rtHave(t, "bash", "python3") {
		for _, l := range lines {
			rt56aPremise(t, l)
		}
	}
	// References: the forms the round-55 fix follows.
	for _, l := range []string{
		w + `python3 -m cProfile -s cumtime x.py`,
		w + `python3 -m pdb -c c x.py`,
		w + `python3 -c 'import x'`,
		`mkdir -p d; echo '` + p + `' > d/__main__.py; python3 -m d`,
		w + `python3 x.py`,
	} {
		rtAtLeast(t, []string{"bash"}, l, Forbidden)
	}
	// The attack.
	for _, l := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls: profiling and importing harmless written code.
	rtBelow(t, `echo 'print(1)' > x.py; python3 -m cProfile --sort cumtime x.py`, Escalated)
	rtBelow(t, `echo 'print(1)' > x.py; python3 -c 'if 1: import x'`, Escalated)
	rtBelow(t, `mkdir -p d; echo 'print(1)' > d/__main__.py; python3 d`, Escalated)
}
