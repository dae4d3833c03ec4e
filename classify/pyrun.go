package classify

import (
	"path"
	"regexp"
	"strings"
)

// Python runs the code of files by more roads than `python3 x.py` and the
// test runners (found by red-team round 55): the modules that run a script
// given to them (python -m pdb, cProfile, profile, trace x.py; runpy x),
// an import of a module the line wrote (python -c 'import x', timeit -s
// 'import x'), exec of a file's text or runpy.run_path, and a build
// backend of the project's own (pyproject.toml's backend-path) that pip
// install runs. The files the line wrote that they would run are judged
// as Python.

// pyScriptModules are the modules run as python -m NAME that run a
// script operand (or a module after -m), with their options that take a
// value.
var pyScriptModules = map[string]string{
	"pdb": "c", "pdb3": "c", "cProfile": "os", "profile": "os", "trace": "fC", "runpy": "",
}

// pyScriptRun judges the written script (or module) a script-running
// module is given. pdb and pdb3 are programs too; the others only count
// as modules of a Python (python -m cProfile).
func (a *analyzer) pyScriptRun(u *unit) {
	valued, ok := pyScriptModules[u.name]
	if !ok || u.name != "pdb" && u.name != "pdb3" && !viaPython(u) {
		return
	}
	var run []field
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		switch {
		case pyLongValued.has(v):
			i++ // --sort cumtime, --outfile o, --file c.out, --command c (round 56)
		case v == "-m" || v == "--module":
			if i+1 < len(u.args) && u.name != "trace" {
				run = append(run, u.args[i+1]) // -m MOD: the module
				i++
			}
		case len(v) == 2 && v[0] == '-' && strings.IndexByte(valued, v[1]) >= 0:
			i++
		case strings.HasPrefix(v, "-"):
		default:
			run = append(run, u.args[i])
			i = len(u.args) // the script: the rest are its arguments
		}
	}
	a.writtenRun(u, run, "python", ".py")
}

// pyLongValued are the script runners' long options that take the next
// word as their value.
var pyLongValued = newSet("--sort", "--outfile", "--file", "--coverdir", "--command", "--ignore-module", "--ignore-dir")

// pyMainOf judges the __main__.py of a directory or package the line
// wrote that a Python runs (python3 d, python3 -m d): round 56.
func (a *analyzer) pyMainOf(u *unit) {
	if !strings.HasPrefix(u.name, "python") {
		return
	}
	for i := 0; i < len(u.args); i++ {
		v := u.args[i].val
		switch {
		case v == "-m" && i+1 < len(u.args):
			mod := u.args[i+1]
			mod.val = strings.ReplaceAll(mod.val, ".", "/") + "/__main__.py"
			a.pyRunWritten(u, mod)
			return
		case v == "-c" || v == "-":
			return
		case v == "-W" || v == "-X" || v == "-Q":
			i++
		case strings.HasPrefix(v, "-"):
		default:
			f := u.args[i]
			f.val = path.Join(f.val, "__main__.py")
			a.pyRunWritten(u, f)
			return
		}
	}
}

// pyRunWritten judges the written file f as Python u runs.
func (a *analyzer) pyRunWritten(u *unit, f field) {
	for _, t := range a.writtenTexts(u, nil, f) {
		a.moreCode(u, "python", t)
	}
}

// viaPython reports whether u is a module a Python runs (python -m NAME).
func viaPython(u *unit) bool {
	return len(u.wrappers) > 0 && strings.HasPrefix(path.Base(u.wrappers[len(u.wrappers)-1]), "python")
}

var (
	// pyImportCall matches a module Python code imports by a call (import
	// statements: pyImportAs, pyFromImport).
	pyImportCall = lazyRegexp(`(?:__import__|import_module|run_module)\(\s*['"]([\w.]+)['"]`)
	// pyRunsFile matches code that runs a file's text: exec(open(F)…),
	// runpy.run_path(F), compile(…), execfile(F).
	pyRunsFile = lazyRegexp(`\bexec\s*\(|\brun_path\s*\(|\bcompile\s*\(|\bexecfile\s*\(|\bexec_module\s*\(`)
)

// pyWrittenCode judges, as Python, the written files Python code text
// runs: the modules it imports by name and, where it runs a file's text,
// the files its strings name. depth bounds imports of imports.
func (a *analyzer) pyWrittenCode(u *unit, text string) {
	if len(a.files) == 0 || a.pyDepth > 3 {
		return
	}
	a.pyDepth++
	defer func() { a.pyDepth-- }()
	var mods []string
	for _, m := range pyImportAs().FindAllStringSubmatch(text, -1) {
		for _, item := range strings.Split(m[1], ",") {
			if w := strings.Fields(item); len(w) > 0 { // NAME [as ALIAS]
				mods = append(mods, w[0])
			}
		}
	}
	for _, re := range []func() *regexp.Regexp{pyFromImport, pyImportCall} {
		for _, m := range re().FindAllStringSubmatch(text, -1) {
			mods = append(mods, m[1])
		}
	}
	var names []string
	for _, mod := range mods {
		mod = strings.ReplaceAll(mod, ".", "/")
		names = append(names, mod+".py", mod+"/__init__.py")
	}
	if pyRunsFile().MatchString(text) {
		names = append(names, codeStrings(text)...)
	}
	for _, n := range names {
		for _, t := range a.writtenTexts(u, nil, field{val: n}) {
			a.moreCode(u, "python", t)
		}
	}
}

// moreCode judges text as code of lang that u runs besides what it was
// found to run so far, keeping what that was found to do.
func (a *analyzer) moreCode(u *unit, lang, text string) {
	prev := u.code
	a.codeText(u, lang, text)
	if prev != nil {
		u.code.merge(*prev)
	}
}

// pyBackend matches pyproject.toml's build backend and its path.
var (
	pyBackend     = lazyRegexp(`(?m)^\s*build-backend\s*=\s*["']([\w.:]+)["']`)
	pyBackendPath = lazyRegexp(`(?m)^\s*backend-path\s*=\s*\[([^\]]*)\]`)
)

// pyBuildBackend judges the build backend of the project in dir, where
// the line wrote its pyproject.toml and the backend lies in the project
// (backend-path): pip install DIR imports it and runs its hooks.
func (a *analyzer) pyBuildBackend(u *unit, dir string) {
	for _, t := range a.writtenTexts(u, nil, field{val: path.Join(dir, "pyproject.toml")}) {
		b, p := pyBackend().FindStringSubmatch(t), pyBackendPath().FindStringSubmatch(t)
		if b == nil || p == nil {
			continue
		}
		mod := strings.ReplaceAll(strings.SplitN(b[1], ":", 2)[0], ".", "/")
		for _, q := range tomlStrings().FindAllStringSubmatch(p[1], -1) {
			base := path.Join(dir, q[1]+q[2])
			for _, f := range []string{mod + ".py", mod + "/__init__.py"} {
				for _, code := range a.writtenTexts(u, nil, field{val: path.Join(base, f)}) {
					a.moreCode(u, "python", code)
				}
			}
		}
	}
}
