package classify

import (
	"path"
	"strings"
)

// Build systems run code of the project's files (found by red-team round
// 62): CMake its CMakeLists.txt's execute_process and custom commands (and
// a -P, -C or CMAKE_PROJECT_INCLUDE script), ctest CTestTestfile.cmake's
// tests, ninja build.ninja's rules, meson meson.build's run_command and
// command: lists, SCons SConstruct as Python, autoconf configure.ac's
// m4_esyscmd (and the shell it copies into the configure script it
// generates), BSD make and GNU remake their makefiles, ant build.xml's
// <exec>, dpkg-buildpackage debian/rules. Where the line wrote such a file,
// what it runs is judged as the code it is.

// buildTool is a build tool's: the language its project files are code
// in, the options naming a file and a directory it works in, and the
// files it reads by default there.
type buildTool struct {
	lang      string   // cmake, ninja, meson, python, autoconf, make, ant
	fileShort string   // -f FILE
	fileLong  []string // --file FILE (ant's one-dash -buildfile too)
	dirShort  string   // -C DIR
	dirLong   []string // --directory DIR
	files     []string // read when no option names one
	operands  bool     // its operands name project files or directories (cmake SRC, autoconf FILE)
}

var (
	makefileNames = []string{"GNUmakefile", "makefile", "Makefile", "BSDmakefile"}
	sconsFiles    = []string{"SConstruct", "Sconstruct", "sconstruct", "SConstruct.py", "Sconstruct.py", "sconstruct.py", "SConscript"}
	autoconfFiles = []string{"configure.ac", "configure.in"}
	makeTool      = buildTool{lang: "make", fileShort: "f", fileLong: []string{"--file", "--makefile"}, dirShort: "C", dirLong: []string{"--directory"}, files: makefileNames}
	autoconfTool  = buildTool{lang: "autoconf", files: autoconfFiles, operands: true}
	debRulesTool  = buildTool{lang: "make", files: []string{"debian/rules"}}
)

// buildTools are the build tools, by the names they run under.
var buildTools = map[string]buildTool{
	"cmake":             {lang: "cmake", dirShort: "S", files: []string{"CMakeLists.txt"}, operands: true},
	"ctest":             {lang: "cmake", fileShort: "S", dirLong: []string{"--test-dir"}, files: []string{"CTestTestfile.cmake"}},
	"ninja":             {lang: "ninja", fileShort: "f", dirShort: "C", files: []string{"build.ninja"}},
	"samu":              {lang: "ninja", fileShort: "f", dirShort: "C", files: []string{"build.ninja"}},
	"meson":             {lang: "meson", files: []string{"meson.build"}},
	"muon":              {lang: "meson", dirShort: "C", files: []string{"meson.build"}},
	"scons":             {lang: "python", fileShort: "f", fileLong: []string{"--file", "--makefile", "--sconstruct"}, dirShort: "C", dirLong: []string{"--directory"}, files: sconsFiles},
	"autoconf":          autoconfTool,
	"autoreconf":        autoconfTool,
	"autoheader":        autoconfTool,
	"aclocal":           autoconfTool,
	"automake":          autoconfTool,
	"bmake":             makeTool,
	"pmake":             makeTool,
	"bsdmake":           makeTool,
	"remake":            makeTool,
	"ant":               {lang: "ant", fileShort: "f", fileLong: []string{"-file", "-buildfile", "-find", "-s"}, files: []string{"build.xml"}},
	"dpkg-buildpackage": debRulesTool,
	"debuild":           debRulesTool,
}

// buildSystemCode judges the project files the line wrote that the build
// tool u runs as code.
func (a *analyzer) buildSystemCode(u *unit) {
	t, ok := buildTools[u.name]
	if !ok || len(a.files) == 0 {
		return
	}
	for _, f := range a.buildFiles(u, t) {
		for _, text := range a.writtenTexts(u, nil, f) {
			a.buildFileCode(u, t.lang, text)
		}
	}
}

// buildFiles returns the files the tool u reads as code: those its
// options name, else its default files in its directories.
func (a *analyzer) buildFiles(u *unit, t buildTool) []field {
	var files []field
	if t.fileShort != "" || len(t.fileLong) > 0 {
		files = optValues(u, t.fileShort, t.fileLong...)
	}
	if u.name == "cmake" {
		if len(u.args) > 0 && cmakeToolModes.has(u.args[0].val) {
			return nil // cmake -E, --build …: no project is configured
		}
		files = append(files, cmakeScripts(u)...)
		if len(optValues(u, "P")) > 0 {
			return files // cmake -P SCRIPT runs the script alone
		}
	}
	dirs := optValues(u, t.dirShort, t.dirLong...)
	if t.dirShort == "" && len(t.dirLong) == 0 {
		dirs = nil
	}
	if t.operands {
		for _, o := range u.args {
			if !strings.HasPrefix(o.val, "-") {
				dirs = append(dirs, o)
				files = append(files, o) // autoconf FILE
			}
		}
	}
	dirs = append(dirs, field{val: "."})
	for _, d := range dirs {
		if d.dyn {
			continue
		}
		for _, n := range t.files {
			files = append(files, field{val: path.Join(d.val, n)})
		}
	}
	return files
}

// cmakeToolModes are cmake's first arguments with which it configures no
// project (the build tool a --build runs is followed by its own line).
var cmakeToolModes = newSet("-E", "--build", "--install", "--open", "--help", "--version", "--system-information", "--find-package", "--workflow")

// cmakeScripts returns the CMake scripts cmake runs besides the project's
// CMakeLists.txt: -P SCRIPT, -C INITIAL_CACHE, and the files of the -D
// variables that name scripts to include (CMAKE_PROJECT_INCLUDE,
// CMAKE_PROJECT_<NAME>_INCLUDE_BEFORE, CMAKE_TOOLCHAIN_FILE …).
func cmakeScripts(u *unit) []field {
	out := append(optValues(u, "P"), optValues(u, "C")...)
	for _, d := range optValues(u, "D") {
		name, val, ok := strings.Cut(d.val, "=")
		name, _, _ = strings.Cut(name, ":") // -DNAME:FILEPATH=VALUE
		if ok && cmakeIncludeVar().MatchString(name) {
			g := d
			g.val = val
			out = append(out, g)
		}
	}
	return out
}

// cmakeIncludeVar matches the CMake variables naming files CMake includes.
var cmakeIncludeVar = lazyRegexp(`^CMAKE_(PROJECT_\w*INCLUDE\w*|TOOLCHAIN_FILE|USER_MAKE_RULES_OVERRIDE\w*)$`)

// buildFileCode judges text, a project file in the language lang, as the
// code it runs.
func (a *analyzer) buildFileCode(u *unit, lang, text string) {
	switch lang {
	case "python":
		a.moreCode(u, "python", text)
		return
	case "make":
		a.makefile(u, field{val: text})
		return
	}
	for _, cmd := range buildCommands(lang, text) {
		a.shellString(u, field{val: cmd})
	}
}

// buildCommands returns the shell command lines a project file's text in
// lang runs.
func buildCommands(lang, text string) []string {
	switch lang {
	case "cmake":
		return cmakeCommands(text)
	case "ninja":
		return ninjaCommands(text)
	case "meson":
		return mesonCommands(text)
	case "autoconf":
		return autoconfCommands(text)
	case "ant":
		return antCommands(text)
	}
	return nil
}
