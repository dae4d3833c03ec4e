package classify

import (
	"strings"
	"testing"
)

// Red-team round 62: build systems other than make and CMake that run
// code of the project's files (build.ninja's rules, meson.build's
// run_command, SConstruct's Python, configure.ac's m4 and shell).
// Nothing in package classify knows ninja, meson, scons, autoconf,
// autoreconf or a configure script autoconf generates, so each falls
// through to the default, sandboxed, whatever project files the line
// wrote (compare toolscripts.go:runnerCode, which follows make's
// Makefile, npm's package.json, tox, nox, pytest … files the line wrote).

// TestRedteam62Ninja: ninja runs the commands of build.ninja's rules:
//
//	printf 'rule r\n  command = sh -c "rm -rf ~/.ssh"\nbuild out: r\n' > build.ninja; ninja                 sandboxed
//	(the same in b/build.ninja) ninja -C b, ninja -f b/build.ninja                                         sandboxed
//
// each removes ~/.ssh, where the same recipe in a written Makefile run by
// make is judged. Premise: Debian's ninja (package ninja-build) in a fake
// home; the control runs `true`. Severity: high (a forbidden deletion of
// the home's ~/.ssh judged sandboxed). Found by red-team round 62. Fixed:
// buildsystems.go: meson and muon read meson.build; mesonCommands judges
// each run_command and each command: list as a command line. Fixed:
// buildsystems.go: ninja and samu (-f FILE, -C DIR) read build.ninja, whose
// rules' command lines ninjaCommands judges as shell.
func TestRedteam62Ninja(t *testing.T) {
	const rm = `sh -c "rm -rf ~/.ssh"`
	const rules = `rule r\n  command = ` + rm + `\nbuild out: r\n`
	attacks := []string{
		`printf '` + rules + `' > build.ninja; ninja`,
		`mkdir -p b; printf '` + rules + `' > b/build.ninja; ninja -C b`,
		`mkdir -p b; printf '` + rules + `' > b/build.ninja; ninja -f b/build.ninja out`,
	}
	rt60aNeed(t, "ninja-build", "ninja")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, rm, "true"))
	}
	rtAtLeast(t, []string{"bash"}, `printf 'all:\n\t`+rm+`\n' > Makefile; make`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `ninja -C build`, Escalated)
	rtBelow(t, `ninja -C build test`, Escalated)
	rtBelow(t, `printf 'rule cc\n  command = cc -c $in -o $out\nbuild x.o: cc x.c\n' > build.ninja; ninja`, Escalated)
}

// TestRedteam62Meson: meson runs meson.build's run_command at setup time:
//
//	printf "project('x')\nrun_command('sh', '-c', 'rm -rf ~/.ssh', check: false)\n" > meson.build; meson setup b   sandboxed
//
// removes ~/.ssh. Premise: Debian's meson (packages meson, ninja-build) in
// a fake home; the control runs `true`. Severity: high. Found by red-team
// round 62.
func TestRedteam62Meson(t *testing.T) {
	const rm = `'sh', '-c', 'rm -rf ~/.ssh'`
	attacks := []string{
		`printf "project('x')\nrun_command(` + rm + `, check: false)\n" > meson.build; meson setup b`,
		`printf "project('x')\nrun_command(` + rm + `, check: false)\n" > meson.build; meson b`,
	}
	rt60aNeed(t, "meson", "meson", "ninja")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, rm, `'true'`))
	}
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `meson setup build && meson compile -C build`, Escalated)
	rtBelow(t, `meson test -C build`, Escalated)
	rtBelow(t, `printf "project('x', 'c')\nexecutable('x', 'x.c')\n" > meson.build; meson setup b`, Escalated)
}

// TestRedteam62SCons: scons runs SConstruct as Python:
//
//	printf 'import shutil, os\nshutil.rmtree(os.path.expanduser("~/.ssh"))\n' > SConstruct; scons     sandboxed
//
// removes ~/.ssh, where the same text run by python3 (a written x.py) is
// judged. Premise: Debian's scons (package scons) in a fake home; the
// control prints. Severity: high. Found by red-team round 62. Fixed:
// buildsystems.go: scons (-f/--file/--sconstruct FILE, -C DIR) reads
// SConstruct (and its other names, SConscript) as Python.
func TestRedteam62SCons(t *testing.T) {
	const code = `shutil.rmtree(os.path.expanduser("~/.ssh"))`
	attacks := []string{
		`printf 'import shutil, os\n` + code + `\n' > SConstruct; scons`,
		`printf 'import shutil, os\n` + code + `\n' > build.py; scons -f build.py`,
		`printf 'import shutil, os\n` + code + `\n' > SConstruct; scons -Q .`,
	}
	rt60aNeed(t, "scons", "scons")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, code, `print(1)`))
	}
	rtAtLeast(t, []string{"bash"}, `printf 'import shutil, os\n`+code+`\n' > x.py; python3 x.py`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `scons -j4`, Escalated)
	rtBelow(t, `printf 'Program("x.c")\n' > SConstruct; scons`, Escalated)
}

// TestRedteam62Autotools: autoconf expands configure.ac with m4 (its
// m4_esyscmd runs a command when autoconf runs) and copies the shell of
// configure.ac into the configure script it generates:
//
//	printf 'AC_INIT([x],[1])\nm4_esyscmd([rm -rf ~/.ssh])\nAC_OUTPUT\n' > configure.ac; autoconf     sandboxed
//	(the same) autoreconf -i                                                                            sandboxed
//	printf 'AC_INIT([x],[1])\nrm -rf ~/.ssh\nAC_OUTPUT\n' > configure.ac; autoreconf -i && ./configure  sandboxed
//	(the same) autoconf && sh configure                                                                 sandboxed
//
// each removes ~/.ssh, where `m4` on a written file holding
// esyscmd(rm -rf ~/.ssh) and a written configure script run directly are
// judged. Premise: Debian's autoconf (packages autoconf, automake for
// autoreconf) in a fake home; the control runs `true`. Severity: high.
// Found by red-team round 62. Fixed: buildsystems.go: bmake, pmake, bsdmake
// and remake are make (-f FILE, -C DIR, the makefile names), their
// makefiles judged by makefile.go. Fixed: buildsystems.go: autoconf, autoreconf,
// autoheader, aclocal and automake read configure.ac (configure.in);
// autoconfCommands judges its m4_esyscmd/m4_syscmd commands and the shell
// it copies into configure (lines outside macro calls, and macro arguments)
// when they run.
func TestRedteam62Autotools(t *testing.T) {
	attacks := []string{
		`printf 'AC_INIT([x],[1])\nm4_esyscmd([rm -rf ~/.ssh])\nAC_OUTPUT\n' > configure.ac; autoconf`,
		`printf 'AC_INIT([x],[1])\nm4_esyscmd([rm -rf ~/.ssh])\nAC_OUTPUT\n' > configure.ac; autoreconf -i`,
		`printf 'AC_INIT([x],[1])\nrm -rf ~/.ssh\nAC_OUTPUT\n' > configure.ac; autoreconf -i && ./configure`,
		`printf 'AC_INIT([x],[1])\nrm -rf ~/.ssh\nAC_OUTPUT\n' > configure.ac; autoconf && sh configure`,
	}
	rt60aNeed(t, "autoconf", "autoconf", "m4")
	rt60aNeed(t, "automake", "autoreconf", "aclocal")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"))
	}
	rtAtLeast(t, []string{"bash"}, `printf 'esyscmd(rm -rf ~/.ssh)\n' > x.m4; m4 x.m4`, Escalated)
	rtAtLeast(t, []string{"bash"}, `printf 'rm -rf ~/.ssh\n' > configure; sh configure`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `autoreconf -fi && ./configure --prefix=$PWD/inst && make`, Escalated)
	rtBelow(t, `./configure && make -j4`, Escalated)
	rtBelow(t, `printf 'AC_INIT([x],[1])\nAC_PROG_CC\nAC_OUTPUT\n' > configure.ac; autoconf`, Escalated)
}

// TestRedteam62OtherMakes: BSD make (Debian's bmake, also installed as
// pmake) and GNU remake (a patched GNU make) run a Makefile's recipes as
// make does, and the classifier knows only the names make and gmake:
//
//	printf 'all:\n\trm -rf ~/.ssh\n' > Makefile; bmake     sandboxed
//	(the same) pmake, remake                               sandboxed
//
// each removes ~/.ssh, where `… > Makefile; make` is forbidden.
//
// Why: convention.go (case name == "make" || name == "gmake"), escapes.go
// and unit.go's -C table name make and gmake only.
//
// Premise: Debian's bmake and remake (packages bmake, remake) in a fake
// home; the control's recipe runs `true`. Severity: high. Found by
// red-team round 62.
func TestRedteam62OtherMakes(t *testing.T) {
	const mk = `printf 'all:\n\trm -rf ~/.ssh\n' > Makefile; `
	attacks := []string{mk + `bmake`, mk + `pmake`, mk + `remake`, mk + `bmake -C . all`}
	rt60aNeed(t, "bmake", "bmake", "pmake")
	rt60aNeed(t, "remake", "remake")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"))
	}
	rtAtLeast(t, []string{"bash"}, mk+`make`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `bmake -j4`, Escalated)
	rtBelow(t, `printf 'all:\n\tcc -o x x.c\n' > Makefile; bmake`, Escalated)
}

// TestRedteam62Ant: Apache Ant runs build.xml's targets, whose <exec>
// task starts any program:
//
//	printf '<project default="a"><target name="a"><exec executable="sh"><arg value="-c"/><arg value="rm -rf ~/.ssh"/></exec></target></project>' > build.xml; ant   sandboxed
//	(the same in x.xml) ant -f x.xml, ant -buildfile x.xml a                                                                                                       sandboxed
//
// each removes ~/.ssh. Why: nothing in package classify knows ant.
// Premise: Debian's ant (package ant, with a JRE) in a fake home; the
// control runs `true`. Severity: high. Found by red-team round 62. Fixed:
// buildsystems.go: ant (-f, -file, -buildfile, -find FILE) reads build.xml;
// antCommands judges each <exec>/<apply> task's executable and <arg> words
// as a command line.
func TestRedteam62Ant(t *testing.T) {
	const xml = `<project default="a"><target name="a"><exec executable="sh"><arg value="-c"/><arg value="rm -rf ~/.ssh"/></exec></target></project>`
	attacks := []string{
		`printf '` + xml + `' > build.xml; ant`,
		`printf '` + xml + `' > x.xml; ant -f x.xml`,
		`printf '` + xml + `' > x.xml; ant -buildfile x.xml a`,
	}
	rt60aNeed(t, "ant", "ant", "java")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, "rm -rf ~/.ssh", "true"))
	}
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `ant clean test`, Escalated)
	rtBelow(t, `printf '<project default="a"><target name="a"><echo message="hi"/></target></project>' > build.xml; ant`, Escalated)
}

// TestRedteam62PythonTaskRunners: invoke (inv) imports the project's
// tasks.py, and doit imports dodo.py, to learn their tasks, even for
// `invoke -l` / `doit list`, running the module's top-level code:
//
//	printf 'import shutil, os\nshutil.rmtree(os.path.expanduser("~/.ssh"))\n' > tasks.py; invoke -l   sandboxed
//	(the same) inv -l; > dodo.py; doit list, doit                                                      sandboxed
//
// each removes ~/.ssh, where `python3 tasks.py` on the same text, and
// nox's written noxfile.py, are judged.
//
// Why: nothing in package classify knows invoke, inv or doit
// (toolscripts.go follows tox's, nox's, pytest's files only).
//
// Premise: Debian's invoke and doit (packages python3-invoke,
// python3-doit) in a fake home; the control prints. Severity: high.
// Found by red-team round 62. Fixed: invoke/inv (tasks.py, -c NAME) and doit (dodo.py, -f FILE) join pyrunners.go's pyRunners table, their written files judged as the Python they import.
func TestRedteam62PythonTaskRunners(t *testing.T) {
	const code = `shutil.rmtree(os.path.expanduser("~/.ssh"))`
	const py = `printf 'import shutil, os\n` + code + `\n' > `
	attacks := []string{
		py + `tasks.py; invoke -l`,
		py + `tasks.py; inv -l`,
		py + `dodo.py; doit list`,
		py + `dodo.py; doit`,
	}
	rt60aNeed(t, "python3-invoke", "invoke", "inv")
	rt60aNeed(t, "python3-doit", "doit")
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, code, `print(1)`))
	}
	rtAtLeast(t, []string{"bash"}, py+`tasks.py; python3 tasks.py`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `invoke test`, Escalated)
	rtBelow(t, `doit -n 4`, Escalated)
	rtBelow(t, `printf 'from invoke import task\n@task\ndef t(c):\n    pass\n' > tasks.py; invoke -l`, Escalated)
}

// TestRedteam62PythonBuild: `python3 -m build` (pypa build, also
// `pyproject-build`) builds the project in the working directory (or
// the one named) as pip does: it runs setup.py, or imports the in-tree
// build backend pyproject.toml names:
//
//	printf 'import shutil, os\nshutil.rmtree(os.path.expanduser("~/.ssh"))\n' > setup.py; python3 -m build --no-isolation   sandboxed
//	(the same) pyproject-build -n; (backend be.py, backend-path ["."]) python3 -m build -n --wheel                         sandboxed
//
// each removes ~/.ssh, where `pip install .` and `python3 setup.py
// bdist_wheel` on the same project are judged.
//
// Why: toolscripts.go:runnerCode hands only pip/pip3 (install, wheel,
// download) to piplocal.go:pipBuildCode; `python3 -m build` (not among
// the -m modules it follows) and pyproject-build have no case.
//
// Premise: Debian's python3-build (with python3-setuptools,
// python3-wheel; -n: no isolated environment, no network) in a fake
// home; the control prints. Severity: high. Found by red-team round 62. Fixed: pybuild.go: python3 -m build and pyproject-build judge the written setup.py and in-tree backend of their source directory through piplocal.go's pyProjectCode, as pip does.
func TestRedteam62PythonBuild(t *testing.T) {
	const code = `shutil.rmtree(os.path.expanduser("~/.ssh"))`
	const setup = `printf 'import shutil, os\n` + code + `\n' > setup.py; `
	const backend = `printf '[build-system]\nrequires = []\nbuild-backend = "be"\nbackend-path = ["."]\n' > pyproject.toml; printf 'import shutil, os\n` + code + `\n' > be.py; `
	attacks := []string{
		setup + `python3 -m build --no-isolation`,
		setup + `pyproject-build -n`,
		backend + `python3 -m build -n --wheel`,
		`mkdir p; cd p; ` + setup + `cd ..; python3 -m build -n p`,
	}
	rt60aNeed(t, "python3-build", "pyproject-build")
	if out, err := rt60aPyModule("build"); err != nil {
		t.Skipf("python3 cannot import build (Debian package python3-build): %v %s", err, out)
	}
	if out, err := rt60aPyModule("setuptools"); err != nil {
		t.Skipf("python3 cannot import setuptools (Debian package python3-setuptools): %v %s", err, out)
	}
	for _, l := range attacks {
		rt60aPremise(t, l, strings.ReplaceAll(l, code, `print(1)`))
	}
	rtAtLeast(t, []string{"bash"}, setup+`python3 setup.py bdist_wheel`, Escalated)
	rtAtLeast(t, []string{"bash"}, backend+`pip install .`, Escalated)
	for _, l := range attacks {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtBelow(t, `python3 -m build`, Escalated)
	rtBelow(t, `printf 'from setuptools import setup\nsetup(name="x")\n' > setup.py; python3 -m build -n`, Escalated)
}
