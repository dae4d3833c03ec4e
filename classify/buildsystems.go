package classify

import (
	"encoding/xml"
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

// ---- CMake ----

// cmakeCall is one command invocation of a CMake file: its name (lower
// case) and arguments.
type cmakeCall struct {
	name string
	args []string
}

// cmakeCalls reads the command invocations of a CMake text: NAME(ARGS),
// arguments bracketed ([[…]], [=[…]=]), quoted ("…", with \ escapes) or
// unquoted; # comments dropped.
func cmakeCalls(text string) []cmakeCall {
	var out []cmakeCall
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '#':
			i = cmakeSkipComment(text, i)
		case isIdentByte(c):
			j := i
			for j < len(text) && isIdentByte(text[j]) {
				j++
			}
			k := j
			for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
				k++
			}
			if k < len(text) && text[k] == '(' {
				args, end := cmakeArgs(text, k+1)
				out = append(out, cmakeCall{strings.ToLower(text[i:j]), args})
				i = end
			} else {
				i = j
			}
		default:
			i++
		}
	}
	return out
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// cmakeBracket matches the opening of a bracket argument or comment.
var cmakeBracket = lazyRegexp(`^\[(=*)\[`)

// cmakeSkipComment returns the end of the comment at i.
func cmakeSkipComment(text string, i int) int {
	if m := cmakeBracket().FindStringSubmatch(text[i+1:]); m != nil {
		if e := strings.Index(text[i+1+len(m[0]):], "]"+m[1]+"]"); e >= 0 {
			return i + 1 + len(m[0]) + e + len(m[1]) + 2
		}
		return len(text)
	}
	if e := strings.IndexByte(text[i:], '\n'); e >= 0 {
		return i + e
	}
	return len(text)
}

// cmakeArgs reads the arguments after a command's "(" at i, returning
// them and the index after the closing ")".
func cmakeArgs(text string, i int) ([]string, int) {
	var args []string
	depth := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#':
			i = cmakeSkipComment(text, i)
		case c == ')':
			if depth == 0 {
				return args, i + 1
			}
			depth--
			i++
		case c == '(':
			depth++
			i++
		case c == '"':
			var b strings.Builder
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' && i+1 < len(text) {
					i++
					switch text[i] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case '\n':
					default:
						b.WriteByte(text[i])
					}
					continue
				}
				b.WriteByte(text[i])
			}
			args = append(args, b.String())
			i++
		case c == '[' && cmakeBracket().MatchString(text[i:]):
			m := cmakeBracket().FindStringSubmatch(text[i:])
			rest := text[i+len(m[0]):]
			e := strings.Index(rest, "]"+m[1]+"]")
			if e < 0 {
				return append(args, rest), len(text)
			}
			args = append(args, strings.TrimPrefix(rest[:e], "\n"))
			i += len(m[0]) + e + len(m[1]) + 2
		default:
			j := i
			for j < len(text) && !strings.ContainsRune(" \t\r\n()#\"", rune(text[j])) {
				if text[j] == '\\' && j+1 < len(text) {
					j++
				}
				j++
			}
			args = append(args, text[i:j])
			i = j
		}
	}
	return args, i
}

// cmakeCommandKeywords are the keywords that end a COMMAND's words, by
// the CMake commands that run them.
var cmakeCommandKeywords = map[string]set{
	"execute_process": newSet("COMMAND", "WORKING_DIRECTORY", "TIMEOUT", "RESULT_VARIABLE", "RESULTS_VARIABLE", "OUTPUT_VARIABLE",
		"ERROR_VARIABLE", "INPUT_FILE", "OUTPUT_FILE", "ERROR_FILE", "OUTPUT_QUIET", "ERROR_QUIET", "COMMAND_ECHO",
		"OUTPUT_STRIP_TRAILING_WHITESPACE", "ERROR_STRIP_TRAILING_WHITESPACE", "ENCODING", "ECHO_OUTPUT_VARIABLE",
		"ECHO_ERROR_VARIABLE", "COMMAND_ERROR_IS_FATAL"),
	"add_custom_command": cmakeCustomKeywords,
	"add_custom_target":  cmakeCustomKeywords,
	"add_test":           newSet("NAME", "COMMAND", "CONFIGURATIONS", "WORKING_DIRECTORY", "COMMAND_EXPAND_LISTS"),
}

var cmakeCustomKeywords = newSet("OUTPUT", "COMMAND", "MAIN_DEPENDENCY", "DEPENDS", "BYPRODUCTS", "IMPLICIT_DEPENDS",
	"WORKING_DIRECTORY", "COMMENT", "DEPFILE", "JOB_POOL", "JOB_SERVER_AWARE", "VERBATIM", "APPEND", "USES_TERMINAL",
	"COMMAND_EXPAND_LISTS", "DEPENDS_EXPLICIT_ONLY", "CODEGEN", "TARGET", "PRE_BUILD", "PRE_LINK", "POST_BUILD", "SOURCES", "ALL")

// cmakeCommands returns the command lines a CMake text runs: each
// COMMAND of execute_process, add_custom_command and add_custom_target
// (and the one a target names before its keywords), and each test of
// add_test (as ctest runs CTestTestfile.cmake's).
func cmakeCommands(text string) []string {
	var out []string
	for _, c := range cmakeCalls(text) {
		kw, ok := cmakeCommandKeywords[c.name]
		if !ok {
			continue
		}
		var cmd []string
		in := false
		switch {
		case c.name == "add_custom_target" && len(c.args) > 0:
			in, c.args = true, c.args[1:] // NAME [ALL] [COMMAND] words …
		case c.name == "add_test" && len(c.args) > 0 && c.args[0] != "NAME":
			in, c.args = true, c.args[1:] // add_test(NAME words …)
		}
		for _, w := range c.args {
			switch {
			case kw.has(w):
				if len(cmd) > 0 {
					out = append(out, cmakeLine(cmd))
				}
				cmd, in = nil, w == "COMMAND"
			case in:
				cmd = append(cmd, w)
			}
		}
		if len(cmd) > 0 {
			out = append(out, cmakeLine(cmd))
		}
	}
	return out
}

// cmakeRef matches CMake's variable references: ${NAME}, $ENV{NAME},
// $CACHE{NAME}.
var cmakeRef = lazyRegexp(`\$(ENV|CACHE)?\{([A-Za-z0-9_./+-]+)\}`)

// cmakeKnownVars are CMake variables whose values are programs.
var cmakeKnownVars = map[string]string{"CMAKE_COMMAND": "cmake", "CMAKE_CTEST_COMMAND": "ctest", "CMAKE_CPACK_COMMAND": "cpack"}

// cmakeLine writes a command's words as a shell line: each word one
// double-quoted word, a variable reference a run-time value (the
// environment's by its name), no other expansion.
func cmakeLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + cmakeRef().ReplaceAllStringFunc(shellDQEscape(w), func(r string) string {
			m := cmakeRef().FindStringSubmatch(strings.ReplaceAll(r, `\$`, "$"))
			if v, ok := cmakeKnownVars[m[2]]; ok && m[1] == "" {
				return v
			}
			return "${" + strings.NewReplacer(".", "_", "/", "_", "+", "_", "-", "_").Replace(m[2]) + "}"
		}) + `"`
	}
	return strings.Join(q, " ")
}

// shellDQEscape escapes what is special in a shell's double quotes.
func shellDQEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", "$", `\$`).Replace(s)
}

// ---- ninja ----

// ninjaVar matches ninja's variable references: $name, ${name}.
var ninjaVar = lazyRegexp(`\$\{([A-Za-z0-9_.-]+)\}|\$([A-Za-z0-9_-]+)`)

// ninjaCommands returns the commands of a build.ninja's rules (ninja runs
// each with /bin/sh -c): $$ a dollar, $<space> and $: the characters, a
// variable reference a run-time value.
func ninjaCommands(text string) []string {
	text = strings.ReplaceAll(text, "$\r\n", "")
	text = strings.ReplaceAll(text, "$\n", "")
	var out []string
	for l := range strings.Lines(text) {
		k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
		if !ok || strings.TrimSpace(k) != "command" {
			continue
		}
		v = strings.TrimSpace(v)
		v = strings.NewReplacer("$$", "\x00", "$ ", " ", "$:", ":").Replace(v)
		v = ninjaVar().ReplaceAllStringFunc(v, func(r string) string {
			m := ninjaVar().FindStringSubmatch(r)
			return "${" + strings.NewReplacer(".", "_", "-", "_").Replace(m[1]+m[2]) + "}"
		})
		out = append(out, strings.ReplaceAll(v, "\x00", "$"))
	}
	return out
}

// ---- meson ----

// mesonRun matches where a meson.build gives a command: run_command( and
// the command: keyword of custom_target, run_target, generator,
// configure_file …
var mesonRun = lazyRegexp(`\brun_command\s*\(|\bcommand\s*:\s*\[`)

// mesonString matches one meson string: '…' or ”'…”'.
var mesonString = lazyRegexp(`^(?s)(?:'''(.*?)'''|'((?:[^'\\]|\\.)*)')$`)

// mesonCommands returns the command lines a meson.build runs: each
// run_command's positional arguments and each command: list, a string a
// word, anything else (a variable, a program object) a run-time value.
func mesonCommands(text string) []string {
	progs := map[string]string{}
	for _, m := range mesonProgAssign().FindAllStringSubmatch(text, -1) {
		progs[m[1]] = m[2]
	}
	var out []string
	for _, loc := range mesonRun().FindAllStringIndex(text, -1) {
		closer := byte(')')
		if text[loc[1]-1] == '[' {
			closer = ']'
		}
		var words []string
		for _, arg := range mesonArgs(text[loc[1]:], closer) {
			arg = strings.TrimSpace(arg)
			if mesonKeyword().MatchString(arg) {
				break
			}
			if arg != "" {
				words = append(words, mesonWord(arg, progs, len(words) == 0))
			}
		}
		if len(words) > 0 {
			out = append(out, strings.Join(words, " "))
		}
	}
	return out
}

// mesonProgAssign matches a variable given a program: NAME =
// find_program('PROG' …) or executable('PROG' …), a program the project
// builds.
var mesonProgAssign = lazyRegexp(`(?m)^\s*([A-Za-z_]\w*)\s*=\s*(?:find_program|executable)\(\s*'([^']+)'`)

// mesonProgCall matches a program object made in place.
var mesonProgCall = lazyRegexp(`^(?:find_program|executable)\(\s*'([^']+)'`)

// mesonWord returns an argument of a meson command as a shell word: a
// string its text, a program object (find_program, executable, or a
// variable given one) its program; any other value a run-time value where
// it is the program run, a placeholder word elsewhere (files(), a
// target's outputs).
func mesonWord(arg string, progs map[string]string, first bool) string {
	if m := mesonString().FindStringSubmatch(arg); m != nil {
		return shellQuote(mesonUnescape(m[1] + m[2]))
	}
	if m := mesonProgCall().FindStringSubmatch(arg); m != nil {
		return shellQuote(m[1])
	}
	if p, ok := progs[arg]; ok {
		return shellQuote(p)
	}
	if first {
		return "${MESON_VALUE}"
	}
	return "MESON_VALUE"
}

// mesonKeyword matches a keyword argument (check: false).
var mesonKeyword = lazyRegexp(`^[A-Za-z_]\w*\s*:`)

// mesonUnescape decodes a meson string's escapes.
func mesonUnescape(s string) string {
	return strings.NewReplacer(`\'`, "'", `\\`, `\`, `\n`, "\n", `\t`, "\t").Replace(s)
}

// mesonArgs splits the text of an argument list (after its opening
// bracket) at its top-level commas, up to the closer.
func mesonArgs(s string, closer byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			if strings.HasPrefix(s[i:], "'''") {
				e := strings.Index(s[i+3:], "'''")
				if e < 0 {
					return append(out, s[start:])
				}
				i += e + 5
				continue
			}
			for i++; i < len(s) && s[i] != '\'' && s[i] != '\n'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case c == '#':
			if e := strings.IndexByte(s[i:], '\n'); e >= 0 {
				s = s[:i] + s[i+e:]
			}
		case c == '(' || c == '[' || c == '{':
			depth++
		case depth == 0 && c == closer:
			return append(out, s[start:i])
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth == 0 && c == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// ---- autoconf ----

// autoconfCommands returns the shell a configure.ac runs: the commands of
// its m4_esyscmd and m4_syscmd calls (run when autoconf expands it), and
// the shell it copies into the configure script: its lines outside macro
// calls, and the arguments of its macro calls, any of which may be shell
// (AS_IF, AC_CONFIG_COMMANDS …).
func autoconfCommands(text string) []string {
	// m4's quotes are [ and ] in autoconf: read its calls with m4Code.
	swap := strings.NewReplacer("`", "\x01", "'", "\x02", "[", "`", "]", "'")
	back := strings.NewReplacer("`", "", "'", "", "\x01", "`", "\x02", "'")
	cmds, _ := m4Code(swap.Replace(text))
	for i, c := range cmds {
		cmds[i] = back.Replace(c)
	}
	return append(cmds, autoconfShell(text, 0)...)
}

// autoconfMacro matches a macro name followed by its argument list, and a
// line that is a macro's name alone (AC_OUTPUT).
var (
	autoconfMacro = lazyRegexp(`\b([A-Za-z_]\w*)\(`)
	autoconfBare  = lazyRegexp(`^\s*(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*|m4_\w+)\s*$`)
	autoconfDnl   = lazyRegexp(`(?m)\bdnl\b.*$`)
)

// autoconfShell returns the shell of a configure.ac text (depth: how deep
// in macro arguments it lies).
func autoconfShell(text string, depth int) []string {
	if depth > 8 {
		return nil
	}
	text = autoconfDnl().ReplaceAllString(text, "")
	var out []string
	var rest strings.Builder
	for {
		loc := autoconfMacro().FindStringIndex(text)
		if loc == nil {
			rest.WriteString(text)
			break
		}
		rest.WriteString(text[:loc[0]])
		args, end := m4Args(text[loc[1]:])
		for _, a := range args {
			out = append(out, autoconfShell(a, depth+1)...)
		}
		text = text[loc[1]+end:]
	}
	var lines []string
	for l := range strings.Lines(rest.String()) {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && !autoconfBare().MatchString(t) && strings.Trim(t, ",[]") != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > 0 {
		out = append(out, strings.Join(lines, ""))
	}
	return out
}

// m4Args reads the arguments of an autoconf macro call whose "(" has been
// read: split at top-level commas, one level of [ ] quotes removed; it
// returns them and the length read (all of s when no ")" closes the call).
func m4Args(s string) ([]string, int) {
	args, n, _ := m4ArgList(s, '[', ']', false)
	return args, n
}

// m4ArgList reads the arguments of an m4 macro call whose "(" has been
// read, with open and close as its quotes: split at the commas outside
// quotes and nested parentheses, one level of quotes removed, up to the
// ")" that closes the call (ok), or the first argument's end if first.
// It returns them and the length read.
func m4ArgList(s string, open, close byte, first bool) (args []string, n int, ok bool) {
	var b strings.Builder
	quote, paren := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == open:
			quote++
			if quote == 1 {
				continue
			}
		case c == close && quote > 0:
			quote--
			if quote == 0 {
				continue
			}
		case quote > 0:
		case c == '(':
			paren++
		case c == ')' && paren > 0:
			paren--
		case c == ')':
			return append(args, b.String()), i + 1, true
		case c == ',' && paren == 0:
			if args = append(args, b.String()); first {
				return args, i + 1, true
			}
			b.Reset()
			continue
		}
		b.WriteByte(c)
	}
	return append(args, b.String()), len(s), false
}

// ---- ant ----

// antCommands returns the command lines of a build.xml's <exec> and
// <apply> tasks: the executable and its <arg value=…/> (one word), <arg
// line=…/> (words split at blanks), <arg file=…/> and <arg path=…/>
// words; a task's command=… a command line.
func antCommands(text string) []string {
	var out []string
	d := xml.NewDecoder(strings.NewReader(text))
	d.Strict = false
	var cmd []string
	in := 0
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case antExecTasks.has(t.Name.Local) && in == 0:
				in = 1
				cmd = nil
				if v, ok := xmlAttr(t, "command"); ok {
					cmd = append(cmd, antWords(v)...)
				}
				if v, ok := xmlAttr(t, "executable"); ok {
					cmd = append(cmd, shellQuote(v))
				}
			case in > 0:
				in++
				if t.Name.Local != "arg" {
					continue
				}
				for _, k := range []string{"value", "file", "path"} {
					if v, ok := xmlAttr(t, k); ok {
						cmd = append(cmd, shellQuote(v))
					}
				}
				if v, ok := xmlAttr(t, "line"); ok {
					cmd = append(cmd, antWords(v)...)
				}
			}
		case xml.EndElement:
			if in > 0 {
				in--
				if in == 0 && len(cmd) > 0 {
					out = append(out, strings.Join(cmd, " "))
				}
			}
		}
	}
	return out
}

// antExecTasks are ant's tasks that run a program.
var antExecTasks = newSet("exec", "apply", "execon")

// antWords splits an ant command line at blanks, each word quoted.
func antWords(v string) []string { return quoteWords(strings.Fields(v)) }

// xmlAttr returns the attribute k of an element.
func xmlAttr(t xml.StartElement, k string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == k {
			return a.Value, true
		}
	}
	return "", false
}
