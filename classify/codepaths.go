package classify

import (
	"path"
	"slices"
	"strings"
)

// pathJoins are calls that join path components.
var pathJoins = []string{"os.path.join(", "posixpath.join(", "path.join(", "File.join(", "filepath.Join(", "File.expand_path("}

// joinedPath evaluates a call's argument list that starts with a path join
// of string literals and other expressions (os.path.join("build", d)):
// an absolute component starts the path afresh, as Python's join does.
// With a computed component, bare is the path with the computed parts
// taken as empty, like an unset shell variable ("$D/tmp" is /tmp): a
// computed last component leaves nothing known.
//
// Only a join that is the whole argument gives a path: with more code
// after it (join(…) + "/", join(…) or "/etc", join(…) if c else "/") the
// path is computed, every part of it taken as unknown.
func joinedPath(arg string) (p field, ok bool) {
	t := strings.TrimLeft(arg, " \t(")
	for _, j := range pathJoins {
		if strings.HasPrefix(t, j) {
			ok = true
			rest := t[len(j)-1:]
			t = callArgText(rest)
			after := strings.TrimLeft(strings.TrimPrefix(rest, t), " \t)")
			if after != "" && !strings.HasPrefix(after, ",") {
				return field{val: arg, dyn: true, dynPrefix: true}, true
			}
			break
		}
	}
	if !ok || len(t) < 2 {
		return field{}, false
	}
	var parts []string
	for _, part := range splitArgs(t[1 : len(t)-1]) {
		lit, n := readLiteralMaybe(part, `"'`)
		if n == 0 && slices.Contains(homeExprs, part) {
			lit, n = "~", len(part)
		}
		if n == 0 || n != len(part) {
			p.dyn, parts = true, nil // what comes before is replaced or follows
			continue
		}
		if strings.HasPrefix(lit, "/") || strings.HasPrefix(lit, "~") {
			parts = nil
		}
		parts = append(parts, lit)
	}
	p.val = path.Join(parts...)
	if p.dyn {
		p.bare = "/" + p.val
		if len(parts) > 0 && (strings.HasPrefix(parts[0], "/") || strings.HasPrefix(parts[0], "~")) {
			p = field{val: p.val} // an absolute literal after the computed part
		} else if len(parts) == 0 {
			p.bare = ""
		}
	}
	return p, true
}

// splitArgs splits an argument list's text at its top-level commas,
// trimming each argument.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// callArgText returns the argument text of a call whose name ends where s
// starts: up to the matching parenthesis, or without one to the end of the
// statement (perl's eval <STDIN>).
func callArgText(s string) string {
	t := strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(t, "(") {
		if i := strings.IndexAny(t, ";\n}"); i >= 0 {
			return t[:i]
		}
		return t
	}
	depth := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return t[:i+1]
			}
		}
	}
	return t
}

// homeExprs are expressions that evaluate to the home directory.
var homeExprs = []string{"os.path.expanduser(\"~\")", "os.path.expanduser('~')", "Path.home()", "pathlib.Path.home()",
	"os.homedir()", "require('os').homedir()", "require(\"os\").homedir()", "os.environ['HOME']", "os.environ[\"HOME\"]",
	"os.getenv('HOME')", "os.getenv(\"HOME\")", "process.env.HOME", "ENV['HOME']", "ENV[\"HOME\"]", "Dir.home",
	"$ENV{HOME}", "$ENV{'HOME'}", "os.UserHomeDir()", "expanduser('~')", "expanduser(\"~\")", "'/'", "\"/\""}

// deletesHome reports whether a delete call's first argument is the home
// directory written as an expression (shutil.rmtree(Path.home())).
func deletesHome(code, name string) bool {
	for off := 0; ; {
		i := strings.Index(code[off:], name)
		if i < 0 {
			return false
		}
		off += i + len(name)
		rest := strings.TrimLeft(code[off:], " (")
		for _, h := range homeExprs {
			if strings.HasPrefix(rest, h) {
				after := strings.TrimLeft(rest[len(h):], " ")
				if after == "" || after[0] == ')' || after[0] == ',' || after[0] == ';' {
					return true
				}
			}
		}
	}
}
