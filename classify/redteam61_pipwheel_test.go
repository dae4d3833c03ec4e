package classify

import (
	"strings"
	"testing"
)

// TestRedteam61PipWheel: pip builds a local project for `pip wheel DIR`
// and `pip download DIR` exactly as for `pip install DIR`: it imports the
// project's build backend (pyproject.toml's build-backend, found in the
// project itself through backend-path) or runs its setup.py, so
//
//	printf '[build-system]\nrequires = []\nbuild-backend = "be"\nbackend-path = ["."]\n' > pyproject.toml; printf 'import os, shutil\nshutil.rmtree(os.path.expanduser("~/.ssh"))\n' > be.py; pip wheel --no-deps .   sandboxed
//	printf 'import os, shutil\nshutil.rmtree(os.path.expanduser("~/.ssh"))\n' > setup.py; pip wheel --no-build-isolation --no-deps .                                                                sandboxed
//	(the same) python3 -m pip wheel …, pip download --no-build-isolation --no-deps -d dl .                                                                                                      sandboxed
//
// remove ~/.ssh, where the very same lines ending in `pip install .` are
// judged (forbidden, escalated).
//
// Why: toolscripts.go:runnerCode judges the written setup.py and the
// in-tree backend (pyrun.go:pyBuildBackend) only when u.arg(0) ==
// "install"; `wheel` and `download` (which build the project the same way
// to learn its metadata and make its wheel) fall through to sandboxed.
//
// The premise runs each line with Debian's pip (python3-pip; the setup.py
// lines need python3-setuptools, no network: requires = [] and
// --no-build-isolation install nothing) in a fake home and checks that its
// ~/.ssh is gone, and that the same line with a harmless backend leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed). Found by red-team round 61. Fixed: piplocal.go:pipBuildCode
// judges the written setup.py and in-tree backend of the projects of
// install, wheel and download alike (pipBuildSubs).
func TestRedteam61PipWheel(t *testing.T) {
	const payload = `import os, shutil\nshutil.rmtree(os.path.expanduser("~/.ssh"))\n`
	backend := `printf '[build-system]\nrequires = []\nbuild-backend = "be"\nbackend-path = ["."]\n' > pyproject.toml; printf '` + payload + `' > be.py; `
	setup := `printf '` + payload + `' > setup.py; `
	attacks := []string{
		backend + `pip wheel --no-deps .`,
		backend + `pip3 wheel --no-deps -w dist .`,
		setup + `pip wheel --no-build-isolation --no-deps .`,
		setup + `python3 -m pip wheel --no-build-isolation --no-deps .`,
		setup + `pip download --no-build-isolation --no-deps -d dl .`,
	}
	rt60aNeed(t, "python3-pip", "pip", "pip3", "python3")
	if out, err := rt60aPyModule("setuptools"); err != nil {
		t.Skipf("python3 cannot import setuptools (Debian package python3-setuptools): %v %s", err, out)
	}
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, `shutil.rmtree(os.path.expanduser("~/.ssh"))`, `print(1)`),
			"PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1")
	}
	// References: the same projects installed, and the code run directly.
	rtAtLeast(t, []string{"bash"}, backend+`pip install .`, Escalated)
	rtAtLeast(t, []string{"bash"}, setup+`pip install --no-build-isolation .`, Escalated)
	rtAtLeast(t, []string{"bash"}, setup+`python3 setup.py bdist_wheel`, Escalated)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday wheel builds and downloads.
	rtBelow(t, `pip wheel --no-deps -w dist .`, Escalated)
	rtBelow(t, `pip wheel -r requirements.txt -w wheels`, Escalated)
	rtBelow(t, `pip download -d vendor requests`, Escalated)
	rtBelow(t, `printf 'from setuptools import setup\nsetup(name="x")\n' > setup.py; pip wheel --no-build-isolation --no-deps .`, Escalated)
}

// TestRedteam61PipInstallForms: `pip install DIR` builds the local
// project (its in-tree backend, its setup.py) for every way of naming the
// directory, and the classifier follows only a bare ".", "./…" or "/…"
// operand (and `-e DIR` for setup.py):
//
//	(backend) pip install --no-deps --target t '.[dev]'          sandboxed   (extras: the commonest form)
//	(backend) pip install --no-deps --target t -e '.[dev]'       sandboxed
//	(backend) pip install --no-deps --target t --editable=.      sandboxed   (the backend of -e is never judged)
//	(backend) echo . > req.txt; pip install … -r req.txt         sandboxed   (a written requirements file)
//	(backend) pip install … file://$PWD, … ../${PWD##*/}          sandboxed
//	(setup.py) pip install --no-build-isolation … '.[dev]'       sandboxed
//
// all remove ~/.ssh, where `… pip install --no-deps --target t ./` is
// judged (escalated).
//
// Why: toolscripts.go:runnerCode's pip case takes op.val as the directory
// only when it is ".", or starts with "./" or "/" (so ".[dev]", "file://…",
// "../x" are skipped), calls pyBuildBackend for operands only (never for
// the -e/--editable values, which get setup.py alone), and reads no
// requirements file (-r) the line wrote.
//
// The premise runs each line with Debian's pip (PIP_NO_INDEX=1; --target
// keeps anything from the system's site-packages) in a fake home and
// checks that its ~/.ssh is gone, and that the same line with a harmless
// backend leaves it.
//
// Severity: high (a forbidden deletion of the home's ~/.ssh judged
// sandboxed). Found by red-team round 61. Fixed: piplocal.go takes the
// project of every specifier (operands, -e/--editable values, the lines of
// written -r files and the files they include) by its path less extras
// and file://, setup.py and backend alike; a specifier only known at run
// time may be any project the line wrote.
func TestRedteam61PipInstallForms(t *testing.T) {
	const payload = `import os, shutil\nshutil.rmtree(os.path.expanduser("~/.ssh"))\n`
	backend := `printf '[build-system]\nrequires = []\nbuild-backend = "be"\nbackend-path = ["."]\n' > pyproject.toml; printf '` + payload + `' > be.py; `
	setup := `printf '` + payload + `' > setup.py; `
	attacks := []string{
		backend + `pip install --no-deps --target t '.[dev]'`,
		backend + `pip install --no-deps --target t -e '.[dev]'`,
		backend + `pip install --no-deps --target t --editable=.`,
		backend + `echo . > req.txt; pip install --no-deps --target t -r req.txt`,
		backend + `pip install --no-deps --target t file://$PWD`,
		backend + `pip install --no-deps --target t ../${PWD##*/}`,
		setup + `pip install --no-build-isolation --no-deps --target t '.[dev]'`,
	}
	rt60aNeed(t, "python3-pip", "pip", "python3")
	if out, err := rt60aPyModule("setuptools"); err != nil {
		t.Skipf("python3 cannot import setuptools (Debian package python3-setuptools): %v %s", err, out)
	}
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, `shutil.rmtree(os.path.expanduser("~/.ssh"))`, `print(1)`),
			"PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1")
	}
	// Reference: the same project named "./".
	rtAtLeast(t, []string{"bash"}, backend+`pip install --no-deps --target t ./`, Escalated)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: everyday installs.
	rtBelow(t, `pip install -e '.[dev]'`, Escalated)
	rtBelow(t, `pip install -r requirements.txt`, Escalated)
	rtBelow(t, `echo requests > req.txt; pip install -r req.txt`, Escalated)
}
