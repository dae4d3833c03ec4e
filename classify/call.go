package classify

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// call walks a simple command.
func (a *analyzer) call(ce *syntax.CallExpr, redirs []redir, in *stream, fds map[string]stream, piped, bg bool) stream {
	var env []envVar
	for _, as := range ce.Assigns {
		if as.Name == nil {
			continue
		}
		var f field
		switch {
		case nameTables.has(a.refName(as.Name.Value)):
			f = a.tableAssign(a.refName(as.Name.Value), as)
		case as.Value != nil:
			f = a.expandAssign(as.Value)
			if as.Append || as.Index != nil {
				a.intAssign(as.Name.Value, f) // n+=V adds V; b[0]=V
			}
			if as.Append && as.Index == nil {
				f = a.appendField(as.Name.Value, f)
			}
		case as.Array != nil:
			v, ok := a.arrayAssign(as.Name.Value, as.Array, as.Append)
			f = field{dyn: true, val: "(…)"}
			if v.maybe != nil {
				f.maybe = &v.maybe // v=("${BASH_REMATCH[@]}"): for arithmetic
			}
			if ok && len(ce.Args) == 0 && as.Index == nil {
				a.setVar(as.Name.Value, v)
				continue
			}
		}
		a.walkNode(as.Index)
		a.subscript(as.Name.Value, as.Index)
		var elem *elemAssign
		var written *field
		if as.Index != nil {
			elem = a.elemOf(as.Name.Value, as.Index, f)
			if !nameTables.has(a.refName(as.Name.Value)) {
				written = &field{val: f.val, dyn: f.dyn}
			}
			f.dyn = true // x[i]=v: not $x's value; the element is set by assign
		}
		env = append(env, envVar{name: a.refName(as.Name.Value), val: f, elem: elem, written: written})
	}
	if len(a.aliases) > 0 && len(ce.Args) > 0 {
		a.aliasUse(ce, in)
	}
	var fields []field
	for _, w := range ce.Args {
		fields = append(fields, a.expandWord(w)...)
	}
	if a.keyword && len(fields) > 1 {
		fields, env = keywordAssigns(fields, env)
	}
	if len(ce.Args) == 0 {
		for _, e := range env {
			a.assign(e)
		}
		if len(env) > 0 {
			a.run(&unit{kind: kAssign, env: env})
		}
		if len(redirs) > 0 {
			a.run(&unit{kind: kCall, redirs: redirs})
		}
		return stream{}
	}
	for _, e := range env {
		if isCodeVar(e.name) && !e.val.dyn {
			a.script(e.val.val, nil)
		}
	}
	u := &unit{kind: kCall, redirs: redirs, env: env, fdIn: fds, piped: piped, bg: bg, cwd: a.cwd, links: a.links, dotglob: a.dotglob, nocase: a.nocaseglob}
	a.vimInitCode(u, env)
	u.envFiles = a.envFiles(env)
	u.envReads = a.envReads(u)
	if in != nil {
		u.in = *in
	}
	if len(fields) == 0 {
		if len(redirs) > 0 {
			return a.run(u)
		}
		return stream{}
	}
	u.setProgram(fields[0])
	u.args = fields[1:]
	for _, f := range fields {
		if f.hist {
			u.histInWord = true
		}
	}
	if p := fields[0].val; !fields[0].quoted && len(p) > 1 && p[0] == '!' && p[1] != '=' {
		u.histInWord = true // !prefix re-runs the last command starting with prefix
	}
	out := a.runCall(u, in)
	if len(env) > 0 && !u.dynName && specialBuiltins.has(u.name) {
		a.keepSpecialAssigns(env)
	}
	if u.dynName && strings.ReplaceAll(fields[0].bare, xargsInputBare, "") != "" || anyAlt(fields) || anyAltRedir(redirs) {
		a.speculate(u, fields)
	}
	return out
}

// specialBuiltins are POSIX's special builtins: an assignment before one
// stays set after it in dash, and in bash in posix mode.
var specialBuiltins = newSet(":", ".", "break", "continue", "eval", "exec", "exit", "export", "readonly",
	"return", "set", "shift", "times", "trap", "unset")

// posixMode is whether bash's posix mode is on: run as sh, with --posix
// or -o posix, after set -o posix or with POSIXLY_CORRECT set. Where it
// may or may not be (set in a branch, a run-time option), it is maybe.
type posixMode uint8

const (
	posixOff posixMode = iota
	posixMaybe
	posixOn
)

// keepSpecialAssigns keeps the prefix assignments of a special builtin set
// after it, as a POSIX shell does (X=~ :; cd "$X" && rm -rf . removes the
// home in dash: TestRedteam43SpecialAssign), and bash in posix mode; where
// that mode may be on, X is known only at run time after.
func (a *analyzer) keepSpecialAssigns(env []envVar) {
	keep := func() stream {
		for _, e := range env {
			a.assign(e)
		}
		return stream{}
	}
	switch {
	case a.lang == syntax.LangPOSIX || a.posix == posixOn:
		keep()
	case a.posix == posixMaybe:
		a.maybe(keep)
	}
}

// speculate classifies the command a dynamic program word most likely
// runs: unset variables expand to nothing, so r${X}m -rf / is rm -rf /.
// A variable an earlier ${X:=y} ran on is taken as y (: ${D:=/}; rm -rf $D
// is rm -rf /).
func (a *analyzer) speculate(u *unit, fields []field) {
	var bare []field
	for _, f := range fields {
		// Every run-time part empty, the xargs input too: r{}m is rm.
		b := f.bare
		if f.hasAlt {
			b = f.alt
		}
		b = strings.ReplaceAll(b, xargsInputBare, "")
		if f.dyn && b == "" && !f.quoted {
			continue // an unquoted empty expansion disappears
		}
		vals := []string{b}
		if f.hasAlt && !f.quoted {
			vals = strings.Fields(b) // a default is split like any unquoted value
		}
		for _, v := range vals {
			g := f
			g.val, g.dyn, g.dynPrefix = v, false, false
			bare = append(bare, g)
		}
	}
	if len(bare) == 0 || bare[0].val == "" {
		return
	}
	s := &unit{kind: kCall, redirs: altRedirs(u.redirs), env: u.env, in: u.in, piped: u.piped, bg: u.bg}
	s.setProgram(bare[0])
	s.args = bare[1:]
	out := a.run(s)
	for i, r := range s.redirs {
		if u.redirs[i].target.hasAlt && r.isWrite() {
			// echo … >> ${RC:-~/.bashrc}: text a shell may run later.
			a.writeText(s, r.target, out, r.op == syntax.AppOut || r.op == syntax.AppAll)
		}
	}
}

// altRedirs returns the redirections with each target that holds a
// variable's default (${X:-~}/.bashrc) taken as that default.
func altRedirs(rs []redir) []redir {
	if !anyAltRedir(rs) {
		return rs
	}
	out := slices.Clone(rs)
	for i, r := range out {
		if t := r.target; t.hasAlt {
			t.val, t.dyn, t.dynPrefix = t.alt, false, false
			out[i].target = t
		}
	}
	return out
}

// anyAltRedir reports whether a redirection's target holds a variable's
// default.
func anyAltRedir(rs []redir) bool {
	return slices.ContainsFunc(rs, func(r redir) bool { return r.target.hasAlt })
}

// anyAlt reports whether a field holds a variable an earlier ${X:=y} ran on.
func anyAlt(fields []field) bool {
	for _, f := range fields {
		if f.hasAlt {
			return true
		}
	}
	return false
}

// remember records the known text a command writes to a file on this line
// (echo 'rm -rf /' > x.sh), so that running the file later is classified.
func (a *analyzer) remember(u *unit, out stream) {
	if f := downloadTarget(u); f != "" {
		a.writeFile(fileKey(u.cwd, u.links, field{val: f}), downloaded, false)
	}
	if u.name == "exec" && len(u.args) == 0 {
		out = literal("") // exec >f opens f: later commands write to it
	}
	a.rememberRedirs(u, out)
	a.rememberOther(u, out)
}

// rememberRedirs records what u's redirections write: out, its output.
func (a *analyzer) rememberRedirs(u *unit, out stream) {
	for _, r := range u.redirs {
		if !r.isWrite() || r.target.dyn {
			continue
		}
		a.writeText(u, r.target, out, r.op == syntax.AppOut || r.op == syntax.AppAll)
	}
}

// fdFile returns the file a path naming a descriptor writes to
// (/dev/fd/N, /proc/self/fd/N, /dev/stdout, /dev/stderr): where u's own
// redirections point N, or where an earlier exec opened it.
func (a *analyzer) fdFile(u *unit, p string) (openFile, bool) {
	n, ok := fdPathNumber(p)
	if !ok {
		return openFile{}, false
	}
	for _, r := range slices.Backward(u.redirs) {
		fd := r.fd
		if fd == "" && r.isWrite() {
			fd = "1"
		}
		if fd == n && r.isWrite() && !r.target.dyn {
			if _, self := fdPathNumber(r.target.val); !self {
				return openFile{target: r.target, app: r.op == syntax.AppOut || r.op == syntax.AppAll}, true
			}
		}
	}
	f, ok := a.fds[n]
	return f, ok && f.target.val != ""
}

// fdPathNumber returns the descriptor a path names: /dev/fd/N,
// /proc/self/fd/N (and thread-self), /dev/stdout and /dev/stderr.
func fdPathNumber(p string) (string, bool) {
	switch p {
	case "/dev/stdout":
		return "1", true
	case "/dev/stderr":
		return "2", true
	}
	for _, pre := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if n, ok := strings.CutPrefix(p, pre); ok && n != "" && isFD(n) && !strings.HasSuffix(n, "-") {
			return n, true
		}
	}
	return "", false
}

// writeText records that u writes the stream out to the file target
// (appended when app), and judges known text written to a file a shell
// runs later as if it ran.
func (a *analyzer) writeText(u *unit, target field, out stream, app bool) {
	if target.dyn {
		return
	}
	if f, ok := a.fdFile(u, target.val); ok {
		// exec 3>>~/.bashrc; echo … >/dev/fd/3, | tee /dev/stderr
		target, app = f.target, app || f.app
	}
	text := out.text
	if !out.textKnown {
		text = "\x00unknown"
	}
	if out.traits&trDownload != 0 {
		text = downloaded
	}
	a.writeFile(fileKey(u.cwd, u.links, target), text, app)
	// Through a link the line made (ln -s ~/.bashrc x; echo … >> x)
	// the text lands in the file the link names.
	if runFile(target.val) || runFile(writeThrough(u.links, target.val)) {
		if !out.textKnown && out.lines == "" && !a.funcCall(u) {
			// printf '%s\n' "$X", cat notes.txt, … | awk 1: text only
			// known at run time, as echo "$X" >> ~/.bashrc is. Found by
			// red-team round 51.
			a.unknownRunText(u, "writes text only known at run time to "+target.val+", which a shell runs later")
		}
		runTexts(out, a.script)
	}
	if t := writeThrough(u.links, target.val); pythonStartup(target.val) || pythonStartup(t) {
		a.pythonStartupText(u, target.val, out)
	}
	a.toolRcText(u, writeThrough(u.links, target.val), out) // ~/.vimrc, ~/.tmux.conf, ~/.gdbinit
	// A git configuration runs the commands it sets when git next runs:
	// judged as the whole file now reads, as far as the line knows it.
	if out.textKnown && (gitConfigFile(target.val) || gitConfigFile(writeThrough(u.links, target.val))) {
		for _, t := range fileTexts(a.files[fileKey(u.cwd, u.links, target)]) {
			a.gitConfigText(u, strings.TrimPrefix(t, "\x00unknown"))
		}
	}
}

// pythonStartup reports whether p is a file Python runs at every start: a
// .pth file in a site directory (its import lines run), usercustomize.py
// or sitecustomize.py. Found by red-team round 51.
func pythonStartup(p string) bool {
	c := cleanTarget(p)
	base := c[strings.LastIndexByte(c, '/')+1:]
	if base == "usercustomize.py" || base == "sitecustomize.py" {
		return true
	}
	return strings.HasSuffix(base, ".pth") && (strings.Contains(c, "/site-packages/") || strings.Contains(c, "/dist-packages/"))
}

// pythonStartupText judges code written to a Python start-up file as if it
// ran (a .pth file runs its lines that begin with import): known text as
// Python code, text only known at run time as eval-exec, unless what is
// known of a .pth's text holds no import (echo "$PWD/src" > x.pth).
func (a *analyzer) pythonStartupText(u *unit, target string, out stream) {
	code := out.text
	if strings.HasSuffix(target, ".pth") {
		var imports []string
		for l := range strings.Lines(out.text) {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "import") {
				imports = append(imports, t)
			}
		}
		code = strings.Join(imports, "\n")
		if !out.textKnown && out.text != "" && code == "" {
			return
		}
	}
	if !out.textKnown && !a.funcCall(u) {
		a.unknownRunText(u, "writes text only known at run time to "+target+", which Python runs at every start")
		return
	}
	if code != "" {
		a.codeText(u, "python3", code)
	}
}

// funcCall reports whether u calls a function the line surely defined:
// what its body prints, the call's redirections write (callBodies).
func (a *analyzer) funcCall(u *unit) bool {
	defs := a.funcs[u.name]
	return len(defs) > 0 && defs[0].sure && !u.dynName && u.prog == u.name
}

// keywordAssigns moves, under set -k, the NAME=VALUE words after the
// command name into its environment (their values as the words hold
// them; a quoted 'A=b', which bash keeps a word, is taken as one too). A
// run-time word stays a word.
func keywordAssigns(fields []field, env []envVar) ([]field, []envVar) {
	out := fields[:1:1]
	for _, f := range fields[1:] {
		if !f.dyn && isAssignment(f.val) {
			name, val, _ := strings.Cut(f.val, "=")
			g := f
			g.val = val
			env = append(env, envVar{name: name, val: g})
			continue
		}
		out = append(out, f)
	}
	return out, env
}
