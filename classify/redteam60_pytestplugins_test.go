package classify

import (
	"strings"
	"testing"
)

// TestRedteam60PytestPlugins: pytest imports the plugins `-p NAME` names,
// and takes `-p` from its configuration (addopts of pytest.ini, setup.cfg's
// [tool:pytest], pyproject.toml's [tool.pytest.ini_options]) and from its
// environment (PYTEST_ADDOPTS, PYTEST_PLUGINS) as well as from its command
// line. `python3 -m pytest` puts the working directory on sys.path, so a
// module the line wrote there is imported, its top level run:
//
//	printf '[pytest]\naddopts = -p x\n' > pytest.ini; printf 'import os\nos.system("rm -rf ~/.ssh")\n' > x.py; python3 -m pytest                          sandboxed
//	printf '[tool:pytest]\naddopts = -p x\n' > setup.cfg; printf '…' > x.py; python3 -m pytest                                                          sandboxed
//	printf '[tool.pytest.ini_options]\naddopts = "-p x"\n' > pyproject.toml; printf '…' > x.py; python3 -m pytest                                      sandboxed
//	printf '…' > x.py; PYTEST_PLUGINS=x python3 -m pytest                                                                                                sandboxed
//	printf '…' > x.py; PYTEST_ADDOPTS='-p x' python3 -m pytest                                                                                           sandboxed
//
// while `printf '…' > x.py; python3 -m pytest -p x` and a written
// conftest.py are forbidden.
//
// Why: toolscripts.go:runnerCode/writtenRun judges for pytest the written
// test files, conftest.py and the files its operands name, but not the
// plugins its ini files' addopts or its variables load; envconfig.go knows
// no PYTEST_ variable.
//
// The premise runs each line with Debian's python3-pytest in a fake home
// (the line's ~/.ssh made that home's absolute path) and checks that ~/.ssh
// is gone, and that the same line with a harmless x.py leaves it.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 60. Fixed: pyrunners.go:pytestPlugins judges the
// written modules -p names in pytest's arguments, its ini files' addopts
// (pytest.ini, .pytest.ini, pytest.toml, tox.ini, setup.cfg,
// pyproject.toml, -c) and PYTEST_PLUGINS; PYTEST_ADDOPTS joins pytest's
// arguments (envconfig.go optionEnvVars); python -m MODULE keeps the
// prefix assignments of python (shells.go runModule).
func TestRedteam60PytestPlugins(t *testing.T) {
	const x = `printf 'import os\nos.system("rm -rf ~/.ssh")\n' > x.py`
	attacks := []string{
		`printf '[pytest]\naddopts = -p x\n' > pytest.ini; ` + x + `; python3 -m pytest`,
		`printf '[tool:pytest]\naddopts = -p x\n' > setup.cfg; ` + x + `; python3 -m pytest`,
		`printf '[tool.pytest.ini_options]\naddopts = "-p x"\n' > pyproject.toml; ` + x + `; python3 -m pytest`,
		x + `; PYTEST_PLUGINS=x python3 -m pytest`,
		x + `; PYTEST_ADDOPTS='-p x' python3 -m pytest`,
	}
	if _, err := rt60aPyModule("pytest"); err != nil {
		t.Skip("python3 -m pytest not available (Debian package python3-pytest): premise cannot run")
	}
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, `os.system("rm -rf ~/.ssh")`, `A = 1`))
	}
	// References: the plugin on the command line, a written conftest.py.
	rtAtLeast(t, []string{"bash"}, x+`; python3 -m pytest -p x`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `printf 'import os\nos.system("rm -rf ~/.ssh")\n' > conftest.py; python3 -m pytest`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: a project's own pytest configuration.
	rtBelow(t, `printf '[pytest]\naddopts = -q -x\n' > pytest.ini; python3 -m pytest`, Escalated)
	rtBelow(t, `PYTEST_ADDOPTS='-q' python3 -m pytest tests/`, Escalated)
	rtBelow(t, `python3 -m pytest -p no:cacheprovider`, Escalated)
}
