package classify

import "strings"

// The CMake part of buildsystems.go: a reader of CMake's command syntax
// and the commands its files run (execute_process, add_custom_command,
// add_custom_target, ctest's add_test).

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
		case isNameByte(c):
			j := i
			for j < len(text) && isNameByte(text[j]) {
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
