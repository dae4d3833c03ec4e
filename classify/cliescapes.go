package classify

import "strings"

// Interactive programs whose own commands reach a shell: sqlite3's
// .shell and .system run one, and .once, .output and .read with a file
// name beginning with | run it as a pipe's command, while .output FILE and
// .once FILE write what later statements print to FILE; pdb runs any line
// of -c that is not one of its commands as Python. Found by red-team
// round 51. SQL is not evaluated: what .output FILE receives is only known
// at run time (eval-exec where FILE is one a shell runs later).

// sqliteValues are sqlite3's options that take a value (one dash or two).
var sqliteValues = newSet("cmd", "init", "separator", "newline", "nullvalue", "maxsize", "mmap", "vfs", "lookaside",
	"pagecache", "heap", "escape", "A", "nonce")

// runSqlite judges the dot-commands sqlite3 is given: each operand after
// the database that begins with a dot, each -cmd, and each line of a known
// standard input. A command word whose start is only known at run time may
// be any dot-command: eval-exec.
func (a *analyzer) runSqlite(u *unit) (stream, bool) {
	var cmds []field
	db := false
	for i := 0; i < len(u.args); i++ {
		f := u.args[i]
		name := strings.TrimLeft(f.val, "-")
		switch {
		case !f.dynPrefix && strings.HasPrefix(f.val, "-") && sqliteValues.has(name):
			if i+1 < len(u.args) {
				i++
				if name == "cmd" {
					cmds = append(cmds, u.args[i])
				}
			}
		case !f.dynPrefix && strings.HasPrefix(f.val, "-"):
		case !db:
			db = true
		default:
			cmds = append(cmds, f)
		}
	}
	if u.in.textKnown {
		for l := range strings.Lines(u.in.text) {
			cmds = append(cmds, field{val: strings.TrimSpace(l)})
		}
	}
	for _, c := range cmds {
		if c.dynPrefix {
			u.script = &stream{traits: trUnknown}
			continue
		}
		a.sqliteDot(u, c)
	}
	return a.produce(u), true
}

// sqliteDot judges one dot-command (c, its text).
func (a *analyzer) sqliteDot(u *unit, c field) {
	text, ok := strings.CutPrefix(c.val, ".")
	if !ok {
		// SQL: edit(TEXT, EDITOR) runs EDITOR with the shell (round 56).
		for _, m := range sqliteEdit().FindAllStringSubmatch(c.val, -1) {
			a.shellString(u, field{val: strings.ReplaceAll(m[1], "''", "'"), dyn: c.dyn, src: c.src})
		}
		return
	}
	words := dotArgs(text)
	if len(words) == 0 {
		return
	}
	shellText := func(s string) {
		f := field{val: s, dyn: c.dyn, src: c.src}
		a.shellString(u, f)
	}
	switch words[0] {
	case "shell", "system":
		shellText(strings.Join(words[1:], " "))
	case "once", "output", "o", "read", "import", "excel":
		for i, w := range words[1:] {
			if strings.HasPrefix(w, "-") {
				continue // .once -x, .import --csv
			}
			switch p, ok := strings.CutPrefix(w, "|"); {
			case ok:
				// |cmd takes the rest of the line, quoted or not (round 56).
				shellText(strings.Join(append([]string{p}, words[i+2:]...), " "))
			case words[0] == "read":
				a.sourcedFile(u, "sqlite", field{val: w, dyn: c.dyn}) // .read x.sql the line wrote (round 54)
			case words[0] != "import":
				a.writeText(u, field{val: w, dyn: c.dyn}, stream{traits: trUnknown}, false)
			}
			break
		}
	}
}

// sqliteEdit matches the editor an edit() call in SQL names.
var sqliteEdit = lazyRegexp(`(?i)\bedit\s*\(\s*(?:'(?:[^']|'')*'|[^,()]*)\s*,\s*'((?:[^']|'')*)'\s*\)`)

// dotArgs splits a dot-command's text into words as sqlite3 does:
// white space separates them, '…' quotes, "…" quotes with backslash
// escapes.
func dotArgs(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			break
		}
		var b strings.Builder
		switch q := s[i]; q {
		case '\'', '"':
			i++
			for i < len(s) && s[i] != q {
				if q == '"' && s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
				i++
			}
			i++
		default:
			for i < len(s) && s[i] != ' ' && s[i] != '\t' {
				b.WriteByte(s[i])
				i++
			}
		}
		out = append(out, b.String())
	}
	return out
}

// runPdb judges the lines pdb -c runs: a line that is not one of pdb's
// commands, or one after !, is a Python statement.
func (a *analyzer) runPdb(u *unit) (stream, bool) {
	for opt, f := range optionValues(u.args, "c") {
		if opt != 'c' {
			continue
		}
		if f.dyn {
			u.script = &stream{traits: trUnknown}
			continue
		}
		a.codeText(u, "python3", strings.TrimPrefix(strings.TrimSpace(f.val), "!"))
	}
	return a.produce(u), true
}
