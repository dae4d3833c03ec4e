package classify

import (
	"encoding/xml"
	"strings"
)

// The other build files of buildsystems.go: ninja's rules, meson's
// run_command and command lists, autoconf's configure.ac, ant's build.xml.

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
