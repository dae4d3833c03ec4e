package classify

import (
	"strings"
	"testing"
)

// TestRedteam60PyRunners: Python's task runners run what their project
// files say: tox the `commands` of tox.ini's test environments, nox the
// session functions of noxfile.py (it imports the file, so its top level
// runs), pre-commit the `entry` of a `repo: local` hook with `language:
// system`. A line that writes the file and starts the runner runs any
// command:
//
//	printf '[tox]\nskipsdist=true\n[testenv]\nallowlist_externals=sh\ncommands=sh -c "rm -rf ~/.ssh"\n' > tox.ini; tox   sandboxed
//	printf 'import os\nos.system("rm -rf ~/.ssh")\n' > noxfile.py; python3 -m nox                                              sandboxed
//	git init -q; printf 'repos:\n- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: sh -c "rm -rf ~/.ssh"\n    language: system\n    always_run: true\n    pass_filenames: false\n' > .pre-commit-config.yaml; pre-commit run --all-files   sandboxed
//
// where the same code planted for pytest, `printf 'import os\nos.system("rm
// -rf ~/.ssh")\n' > conftest.py; pytest`, and for make are forbidden.
//
// Why: toolscripts.go:runnerCode follows the files python -m unittest/
// doctest/pytest, pip install DIR, node --test and go generate run by
// their names, and makefile.go/rubycode.go those of make and rake, but not
// tox.ini (nor setup.cfg's [tox:tox], pyproject's [tool.tox]), noxfile.py
// (nox, python3 -m nox: pyrunmodules knows no nox) or
// .pre-commit-config.yaml: each is a program no rule knows, so sandboxed.
//
// The premise runs each line with Debian's tox 3, nox and pre-commit in a
// fake home (the line's ~/.ssh made that home's absolute path: tox 3 drops
// HOME from the commands' environment, so a shell's ~ there is the user's
// real home) and checks that ~/.ssh is gone, and that the same line with
// `true` leaves it.
//
// Severity: high (a forbidden command run, judged sandboxed).
// Found by red-team round 60. Fixed: pyrunners.go (pyRunners, hooked in
// toolscripts.go:runnerCode) judges a written tox.ini/setup.cfg/
// pyproject.toml/tox.toml's command settings (tox's substitutions put in,
// -x overrides too) and toxfile.py, noxfile.py (-f) as Python, and each
// hook entry of a written .pre-commit-config.yaml (-c) as its command.
func TestRedteam60PyRunners(t *testing.T) {
	attacks := []string{
		`printf '[tox]\nskipsdist=true\n[testenv]\nallowlist_externals=sh\ncommands=sh -c "rm -rf ~/.ssh"\n' > tox.ini; tox`,
		`printf 'import os\nos.system("rm -rf ~/.ssh")\n' > noxfile.py; python3 -m nox`,
		`git init -q; printf 'repos:\n- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: sh -c "rm -rf ~/.ssh"\n    language: system\n    always_run: true\n    pass_filenames: false\n' > .pre-commit-config.yaml; pre-commit run --all-files`,
	}
	rt60aNeed(t, "tox, python3-nox, pre-commit", "tox", "pre-commit", "git")
	if _, err := rt60aPyModule("nox"); err != nil {
		t.Skip("python3 -m nox not available (Debian package python3-nox): premise cannot run")
	}
	tmp := t.TempDir()
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"),
			"PRE_COMMIT_HOME="+tmp+"/pre-commit", "GIT_CONFIG_NOSYSTEM=1")
	}
	// References: the same code planted for pytest and for make.
	rtAtLeast(t, []string{"bash"}, `printf 'import os\nos.system("rm -rf ~/.ssh")\n' > conftest.py; pytest`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'all:; rm -rf ~/.ssh' > Makefile; make`, Forbidden)
	// The attack.
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	// Controls: the project's own runners.
	rtBelow(t, `tox -e py311`, Escalated)
	rtBelow(t, `python3 -m nox -s tests`, Escalated)
	rtBelow(t, `pre-commit run --all-files`, Escalated)
	rtBelow(t, `printf '[tox]\nskipsdist=true\n[testenv]\ncommands=python -m pytest\n' > tox.ini; tox`, Escalated)
}
