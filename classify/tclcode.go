package classify

import (
	"path"
	"strings"
)

// Tcl code (tclsh, expect, wish) read as Tcl reads it (found by red-team
// round 58): words are bare, "quoted" or {braced}, [bracketed] words are
// commands of their own, and a braced word may be a body (if, proc,
// foreach, catch), so it is read as a script too. File names are words of
// any kind, and Tcl 8.6 expands a leading ~ in them. The commands that
// touch files by name are a table: what they delete, write, read and load
// is judged as rm, a write, a read and a script are.

// tclWord is one word of a Tcl command: its text (a braced word's as
// written, a quoted or bare word's with backslashes resolved) and whether
// it is known (no $variable or [command] substitution in it).
type tclWord struct {
	val    string
	known  bool
	braced bool
}

// tclScriptCmds take scripts as arguments: a quoted word of theirs is read
// as a script too (eval "file delete -force ~"), as braced words are.
var tclScriptCmds = newSet("eval", "uplevel", "catch", "if", "while", "for", "foreach", "lmap", "proc", "after", "time",
	"try", "namespace", "interp", "apply", "trace", "bind", "fileevent", "switch", "dict", "timeout", "expect", "expect_after",
	"expect_before", "interact")

// tclUse says what a command does to the files its operands name.
type tclUse uint8

const (
	tclDelete tclUse = iota // file delete ?-force? ?--? PATH…: removed (recursively with -force)
	tclWrite                // file mkdir PATH…: written
	tclMove                 // file copy/rename ?-force? ?--? SRC… DEST: DEST written, SRCs read (rename: written too)
	tclRead                 // open PATH ?ACCESS?, file readlink, glob -directory: read
	tclSource               // source ?-encoding E? PATH: run as Tcl
	tclGlob                 // glob ?-directory DIR? PATTERN…: read (listed)
)

// tclFileCmd is a command (one or two words) and its use of its operands.
type tclFileCmd struct {
	name string
	use  tclUse
}

var tclFileCmds = []tclFileCmd{
	{"file delete", tclDelete},
	{"file mkdir", tclWrite},
	{"file copy", tclMove},
	{"file rename", tclMove},
	{"file link", tclMove},
	{"file attributes", tclWrite},
	{"file mtime", tclWrite},
	{"file atime", tclWrite},
	{"open", tclRead},
	{"source", tclSource},
	{"glob", tclGlob},
}

// tclWriteAccess matches open's access argument when it writes: a mode
// (w, a, r+, …) or a flag list naming WRONLY, RDWR, CREAT, APPEND, TRUNC.
var tclWriteAccess = lazyRegexp(`^[wa]\+?$|^r\+$|WRONLY|RDWR|CREAT|APPEND|TRUNC`)

// tclCommands splits Tcl text into commands (at newlines and ;), and reads
// the scripts of its bracketed and braced words as commands too, up to
// depth 8 of nesting, and what is nested deeper flattened.
func tclCommands(text string, depth int) [][]tclWord {
	var out [][]tclWord
	var cmd []tclWord
	nested := func(script string) {
		if depth < 8 {
			out = append(out, tclCommands(script, depth+1)...)
		} else if depth == 8 {
			// Deeper nesting is read flat: each bracket or brace
			// ends a command, so none is lost (if {1} {if {1} {…}}).
			out = append(out, tclCommands(tclFlatten.Replace(script), depth+1)...)
		}
	}
	end := func() {
		if len(cmd) > 0 {
			out = append(out, cmd)
			if cmd[0].known && tclScriptCmds.has(cmd[0].val) {
				for _, w := range cmd[1:] {
					if w.known && !w.braced {
						nested(w.val)
					}
				}
			}
		}
		cmd = nil
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n' || c == ';':
			end()
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		case c == '\\' && i+1 < len(text) && text[i+1] == '\n':
			i += 2
			continue
		case c == '#' && len(cmd) == 0:
			for i < len(text) && text[i] != '\n' {
				if text[i] == '\\' {
					i++
				}
				i++
			}
			continue
		}
		if strings.HasPrefix(text[i:], "{*}") {
			i += 3 // argument expansion: the word's list is spliced in
			continue
		}
		var w tclWord
		var n int
		switch c {
		case '{':
			n = tclMatch(text[i:], '{', '}')
			w = tclWord{val: text[i+1 : i+max(n-1, 1)], known: true, braced: true}
			nested(w.val)
		case '"':
			w, n = tclBare(text[i+1:], true, nested)
			n += 2
		default:
			w, n = tclBare(text[i:], false, nested)
		}
		cmd = append(cmd, w)
		i += max(n, 1)
	}
	end()
	return out
}

// tclFlatten turns nested words into separate commands.
var tclFlatten = strings.NewReplacer("{", "\n", "}", "\n", "[", "\n", "]", "\n")

// tclMatch returns the length of the bracketed span s starts with (open
// … close, nested, backslashes escaping), all of s when it is not closed.
func tclMatch(s string, open, close byte) int {
	level := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case open:
			level++
		case close:
			level--
			if level == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// tclBare reads a bare word (up to a blank, newline or ;) or the inside
// of a quoted word (up to the closing "), resolving backslashes, reading
// its [commands] as scripts; it returns the word and the bytes read.
func tclBare(s string, quoted bool, nested func(string)) (tclWord, int) {
	var b strings.Builder
	w := tclWord{known: true}
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '"':
			w.val = b.String()
			return w, i
		case !quoted && (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '\r'):
			w.val = b.String()
			return w, i
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\n':
				b.WriteByte(' ')
			default:
				b.WriteByte(s[i])
			}
		case c == '[':
			n := tclMatch(s[i:], '[', ']')
			nested(s[i+1 : i+max(n-1, 1)])
			w.known = false
			i += n - 1
		case c == '$':
			w.known = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	w.val = b.String()
	return w, i
}

// tclPathFacts is what Tcl's file commands do by name.
type tclPathFacts struct {
	deletes   []string // removed recursively (file delete -force)
	writes    []string // written or removed
	reads     []string // opened or copied
	sources   []string // run as Tcl (source)
	dynDelete bool     // file delete -force of a path only known at run time
	shells    []string // commands run: exec, spawn, open "|cmd"
}

// tclFacts reads Tcl text's commands against tclFileCmds and its exec,
// spawn and open "|…" commands.
func tclFacts(text string) tclPathFacts {
	var f tclPathFacts
	dir := "" // where cd went: relative paths after it are below it
	for _, cmd := range tclCommands(text, 0) {
		if !cmd[0].known {
			continue
		}
		if cmd[0].val == "cd" {
			dir = tclCd(dir, cmd[1:])
			continue
		}
		if sh, ok := tclRunCommand(cmd); ok {
			if dir != "" {
				sh = "cd " + tclShellPath(dir) + " && " + sh // the program runs where Tcl's cd went
			}
			f.shells = append(f.shells, sh)
			continue
		}
		if dir != "" {
			cmd = tclBelow(dir, cmd)
		}
		for _, fc := range tclFileCmds {
			name := strings.Fields(fc.name)
			if len(cmd) <= len(name) || !tclHasWords(cmd, name) {
				continue
			}
			f.use(fc.use, cmd[len(name):])
		}
	}
	return f
}

// tclCd returns the directory cd ?DIR? goes to from dir: the home with
// none, a run-time one (".") when its word is not known.
func tclCd(dir string, args []tclWord) string {
	switch {
	case len(args) == 0:
		return "~"
	case !args[0].known:
		return ""
	case path.IsAbs(args[0].val) || args[0].val == "~" || strings.HasPrefix(args[0].val, "~/"):
		return args[0].val
	case dir == "":
		return args[0].val
	}
	return path.Join(dir, args[0].val)
}

// tclBelow returns cmd with its known relative words (but its name and
// options) taken as paths below dir.
func tclBelow(dir string, cmd []tclWord) []tclWord {
	out := append([]tclWord(nil), cmd...)
	for i := 1; i < len(out); i++ {
		v := out[i].val
		if out[i].known && v != "" && !strings.HasPrefix(v, "-") && !path.IsAbs(v) && !strings.HasPrefix(v, "~") && !tclSubNames.has(v) {
			out[i].val = path.Join(dir, v)
		}
	}
	return out
}

// tclShellPath quotes a path for the shell, its leading ~ left to expand.
func tclShellPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~"); ok && (rest == "" || rest[0] == '/') {
		if rest == "" {
			return "~"
		}
		return "~/" + shellQuote(rest[1:])
	}
	return shellQuote(p)
}

// tclSubNames are the subcommand words of tclFileCmds, never paths.
var tclSubNames = newSet("delete", "mkdir", "copy", "rename", "link", "attributes", "mtime", "atime")

// tclHasWords reports whether cmd starts with the known words name.
func tclHasWords(cmd []tclWord, name []string) bool {
	for i, n := range name {
		if !cmd[i].known || cmd[i].val != n {
			return false
		}
	}
	return true
}

// use records what a file command does to its arguments.
func (f *tclPathFacts) use(use tclUse, args []tclWord) {
	force := false
	for len(args) > 0 && strings.HasPrefix(args[0].val, "-") && use != tclRead {
		o := args[0].val
		args = args[1:]
		force = force || o == "-force"
		if o == "--" {
			break
		}
		if o == "-encoding" && len(args) > 0 {
			args = args[1:] // source -encoding NAME
		}
	}
	if len(args) == 0 {
		return
	}
	var paths []string
	dyn := false
	for _, a := range args {
		if a.known {
			paths = append(paths, a.val)
		} else {
			dyn = true
		}
	}
	switch use {
	case tclDelete:
		f.writes = append(f.writes, paths...)
		if force {
			f.deletes = append(f.deletes, paths...)
			f.dynDelete = f.dynDelete || dyn
		}
	case tclWrite:
		if args[0].known {
			f.writes = append(f.writes, args[0].val)
		}
	case tclMove:
		last := args[len(args)-1]
		if last.known {
			f.writes = append(f.writes, last.val)
		}
		for _, a := range args[:len(args)-1] {
			if a.known {
				f.reads = append(f.reads, a.val)
			}
		}
	case tclRead:
		if !args[0].known {
			return
		}
		f.reads = append(f.reads, args[0].val)
		if len(args) > 1 && tclWriteAccess().MatchString(args[1].val) {
			f.writes = append(f.writes, args[0].val)
		}
	case tclSource:
		if last := args[len(args)-1]; last.known {
			f.sources = append(f.sources, last.val)
		}
	case tclGlob:
		f.reads = append(f.reads, paths...)
	}
}

// tclRunCommand returns the shell text of a command that runs a program
// (exec, spawn, open "|cmd …"), its words quoted for the shell but for
// exec's pipes and redirections.
func tclRunCommand(cmd []tclWord) (string, bool) {
	var words []tclWord
	switch {
	case cmd[0].val == "exec" || cmd[0].val == "spawn":
		words = cmd[1:]
		for len(words) > 0 && strings.HasPrefix(words[0].val, "-") && words[0].known {
			stop := words[0].val == "--"
			words = words[1:] // exec -ignorestderr, spawn -noecho
			if stop {
				break
			}
		}
	case cmd[0].val == "open" && len(cmd) > 1 && cmd[1].known && strings.HasPrefix(cmd[1].val, "|"):
		return strings.TrimPrefix(cmd[1].val, "|"), true
	default:
		return "", false
	}
	var parts []string
	for _, w := range words {
		if !w.known {
			return "", false // a command only known at run time: the line scan's
		}
		if tclExecOperator(w.val) {
			parts = append(parts, w.val)
		} else {
			parts = append(parts, shellQuote(w.val))
		}
	}
	return strings.Join(parts, " "), len(parts) > 0
}

// tclExecOperator reports whether an exec word is a pipe or redirection.
func tclExecOperator(v string) bool {
	switch v {
	case "|", "|&", "<", "<<", ">", ">>", "2>", "2>>", ">&", ">>&", "&", "2>@1", ">@", "<@", "2>@":
		return true
	}
	return false
}

// tclHome is a Tcl path with its ~ marked as the home.
func tclHome(p string) field {
	return field{val: p, home: p == "~" || strings.HasPrefix(p, "~/")}
}

// tclCodeFacts adds to code facts what Tcl's file commands do.
func tclCodeFacts(f *codeFacts, code string) []string {
	t := tclFacts(code)
	for _, p := range t.deletes {
		f.deletes = append(f.deletes, p)
		f.deleteRoot = f.deleteRoot || criticalTarget(tclHome(p))
	}
	f.dynDelete = f.dynDelete || t.dynDelete
	f.writes = append(f.writes, t.writes...)
	for _, p := range append(append([]string(nil), t.reads...), t.sources...) {
		f.secretRead = f.secretRead || isSecretPathIn("", p)
	}
	return t.shells
}

// tclWrittenSources judges, as Tcl, the files the line wrote that Tcl
// text sources.
func (a *analyzer) tclWrittenSources(u *unit, text string) {
	if len(a.files) == 0 {
		return
	}
	for _, p := range tclFacts(text).sources {
		a.writtenLoad(u, "tcl", p)
	}
}

// writtenLoad judges as code of lang the texts the line wrote to the file
// p that code loads by name (Tcl's source, Lua's require). Past 4 levels
// of such loads a written file is code not followed: eval-exec.
func (a *analyzer) writtenLoad(u *unit, lang, p string) {
	texts := a.writtenTexts(u, nil, field{val: path.Clean(p)})
	if len(texts) == 0 {
		return
	}
	if a.srcDepth > 3 {
		if u.script == nil {
			u.script = &stream{traits: trUnknown}
		}
		return
	}
	a.srcDepth++
	defer func() { a.srcDepth-- }()
	for _, t := range texts {
		a.moreCode(u, lang, t)
	}
}

// tclStartup judges the start-up script Tcl's interpreters run where the
// line wrote it: init.tcl of the TCL_LIBRARY it gives them, and the
// pkgIndex.tcl of each TCLLIBPATH directory (read at a package require).
// convention.go calls it for tclsh, expect and wish.
func (a *analyzer) tclStartup(u *unit) {
	if d, ok := a.envField(u, "TCL_LIBRARY"); ok && !d.dyn {
		a.sourcedFile(u, "tcl", field{val: path.Join(d.val, "init.tcl")})
	}
	if l, ok := a.envField(u, "TCLLIBPATH"); ok && !l.dyn {
		for _, w := range tclCommands(l.val, 0) {
			for _, d := range w {
				if d.known {
					a.sourcedFile(u, "tcl", field{val: path.Join(d.val, "pkgIndex.tcl")})
				}
			}
		}
	}
}
