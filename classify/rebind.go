package classify

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Names the shell resolves through a table the line can change: hash -p
// PATH NAME (and BASH_CMDS, bash's hash table as an array) makes NAME run
// PATH; alias NAME=VALUE (and BASH_ALIASES) makes a command starting with
// NAME start with VALUE.

// nameTables are bash's arrays whose entries rebind program names. Any
// assignment to them is eval-exec (see loaderVars); the entries the line
// knows are followed too.
var nameTables = newSet("BASH_CMDS", "BASH_ALIASES")

// runHash records the bindings of hash -p PATH NAME…, forgets those of
// hash -d NAME… and hash -r. A binding to a path only known at run time
// makes NAME a run-time program; a name or an option only known at run
// time may bind any program, which makes hash itself eval-exec.
func (a *analyzer) runHash(u *unit) (stream, bool) {
	var path field
	bind, del, i := false, false, 0
	for ; i < len(u.args); i++ {
		v := u.args[i].val
		if v == "--" {
			i++
			break
		}
		if u.args[i].dyn && i+1 < len(u.args) {
			u.script = &stream{traits: trUnknown} // hash "$O" /bin/rm ls: O may be -p
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'r':
				clear(a.hashed)
			case 'd':
				del = true
			case 'p':
				bind, path = true, u.args[i]
				path.val = v[j+1:]
				if j+1 == len(v) && i+1 < len(u.args) {
					i++
					path = u.args[i]
				}
				j = len(v)
			}
		}
	}
	for _, f := range u.args[i:] {
		switch {
		case !bind && del:
			delete(a.hashed, f.val)
		case bind && f.dyn:
			u.script = &stream{traits: trUnknown}
		case bind:
			a.rehash(f.val, path)
		}
	}
	return stream{}, true
}

// rehash binds the program name to path.
func (a *analyzer) rehash(name string, path field) {
	if a.hashed == nil {
		a.hashed = map[string]string{}
	}
	if path.dyn || path.val == "" {
		a.hashed[name] = "" // only known at run time
		return
	}
	a.hashed[name] = path.val
}

// hashedProgram puts in for u's program name the path the line bound it to
// (hash -p /bin/rm ls; ls -rf / runs /bin/rm). A builtin or a function of
// that name would still run first: taking the path is the careful reading.
func (a *analyzer) hashedProgram(u *unit) {
	if u.kind != kCall || u.dynName || u.dynDir || strings.ContainsAny(u.prog, "/") {
		return
	}
	p, ok := a.hashed[u.prog]
	switch {
	case !ok:
	case p == "":
		u.dynName = true
	default:
		u.prog, u.name = p, normName(p)
	}
}

// tableAssign records an assignment to a name table (BASH_CMDS[ls]=/bin/rm,
// BASH_CMDS=([ls]=/bin/rm)) and returns the value as an assignment field.
func (a *analyzer) tableAssign(table string, as *syntax.Assign) field {
	switch {
	case as.Value != nil:
		f := a.expandAssign(as.Value)
		a.tableEntry(table, as.Index, f)
		return f
	case as.Array != nil:
		for _, e := range as.Array.Elems {
			a.walkNode(e.Index)
			a.tableEntry(table, e.Index, joinField(a.expandWord(e.Value)))
		}
	}
	return field{dyn: true, val: "(…)"}
}

// tableEntry records table[idx]=f. An index only known at run time is left
// to the eval-exec verdict of the assignment.
func (a *analyzer) tableEntry(table string, idx syntax.ArithmExpr, f field) {
	w, ok := idx.(*syntax.Word)
	if !ok || w.Lit() == "" {
		return
	}
	switch table {
	case "BASH_CMDS":
		a.rehash(w.Lit(), f)
	case "BASH_ALIASES":
		a.setAlias(w.Lit(), f.val)
	}
}

// builtinTableWrite handles a builtin that sets an entry of a name table
// (read 'BASH_CMDS[ls]', printf -v 'BASH_CMDS[ls]' …): the entry is only
// known at run time, and the call is eval-exec.
func (a *analyzer) builtinTableWrite(n string) bool {
	base, key, _ := strings.Cut(n, "[")
	if !nameTables.has(base) {
		return false
	}
	if key, ok := strings.CutSuffix(key, "]"); ok && key != "" {
		if base == "BASH_CMDS" {
			a.rehash(key, field{dyn: true})
		} else {
			a.setAlias(key, "$_")
		}
	}
	a.run(&unit{kind: kAssign, env: []envVar{{name: base, val: field{dyn: true}}}})
	return true
}

// setAlias records an alias. Its value is classified where it is used, as
// the start of that command: with aliases expanded (shopt -s
// expand_aliases, or an interactive shell) a later line runs it so.
func (a *analyzer) setAlias(name, val string) {
	if a.aliases == nil {
		a.aliases = map[string]string{}
	}
	a.aliases[name] = val
}

// runUnalias forgets the aliases unalias removes.
func (a *analyzer) runUnalias(u *unit) (stream, bool) {
	for _, f := range u.args {
		if f.val == "-a" {
			clear(a.aliases)
		}
		delete(a.aliases, f.val)
	}
	return stream{}, true
}

// aliasUse classifies a simple command whose first word is an alias the
// line defined as the command it expands to: the alias value, then the
// rest of the words as written. A value ending in a blank makes the next
// word an alias too (alias s='sudo '). An alias is not expanded again
// inside its own value. The command is still judged as written as well.
func (a *analyzer) aliasUse(ce *syntax.CallExpr, in *stream) {
	var sb strings.Builder
	var busy []string
	i := 0
	for ; i < len(ce.Args); i++ {
		name := plainLit(ce.Args[i])
		v, ok := a.aliases[name]
		if !ok || name == "" || slices.Contains(a.aliasBusy, name) {
			break
		}
		sb.WriteString(v)
		busy = append(busy, name)
		if !strings.HasSuffix(v, " ") && !strings.HasSuffix(v, "\t") {
			i++
			break
		}
	}
	if len(busy) == 0 {
		return
	}
	if i < len(ce.Args) {
		// The rest as written from the end of the alias word: bash reads
		// the value, then the input after the word, so a backslash-newline
		// there ends a comment the value opened (alias e='echo #': e \
		// then rm on the next line runs rm).
		sb.WriteString(a.srcBetween(int(ce.Args[i-1].End().Offset()), int(ce.Args[len(ce.Args)-1].End().Offset())))
	}
	saved := a.aliasBusy
	a.aliasBusy = append(slices.Clip(saved), busy...)
	a.sameShell(sb.String(), in)
	a.aliasBusy = saved
}

// plainLit returns a word that is one unquoted literal with no escapes, ""
// for any other: only such a word is looked up as an alias.
func plainLit(w *syntax.Word) string {
	if len(w.Parts) != 1 {
		return ""
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "\\") {
		return l.Value
	}
	return ""
}

// srcSpan returns the source text from the start of the node from to the
// end of the node to.
func (a *analyzer) srcSpan(from, to syntax.Node) string {
	return a.srcBetween(int(from.Pos().Offset()), int(to.End().Offset()))
}

// srcBetween returns the source text from offset s to e.
func (a *analyzer) srcBetween(s, e int) string {
	if s < 0 || e > len(a.src) || s > e {
		return "$?"
	}
	return a.src[s:e]
}

// enableHarmless are the builtins enable -n may turn off without changing
// what the analysis follows: the programs of their names do the same.
var enableHarmless = newSet("kill", "test", "[", "true", "false", "pwd", "help", "times")

// runEnable follows enable. -f FILE loads a shared object into the shell,
// whose code then runs; -n NAME turns a builtin off, so that NAME runs the
// program of that name (declare, cd, read, printf -v … would then assign or
// change nothing the analysis takes them to: X=~/.ssh; enable -n declare;
// declare X=/tmp/x; rm -rf "$X" deletes ~/.ssh). Either is eval-exec, as
// is a word only known at run time. Listing (-a, -p, -s, no names),
// turning builtins back on and -n of a builtin whose program does the same
// change nothing it follows.
func (a *analyzer) runEnable(u *unit) (stream, bool) {
	off, i := false, 0
	for ; i < len(u.args); i++ {
		f := u.args[i]
		if f.dyn {
			u.script = &stream{traits: trUnknown}
			return stream{}, true
		}
		if f.val == "--" {
			i++
			break
		}
		if len(f.val) < 2 || f.val[0] != '-' {
			break
		}
		if strings.ContainsRune(f.val, 'f') {
			u.script = &stream{traits: trUnknown} // a shared object's code runs in the shell
			return stream{}, true
		}
		off = off || strings.ContainsRune(f.val, 'n')
	}
	if off && slices.ContainsFunc(u.args[i:], func(f field) bool { return !enableHarmless.has(f.val) }) {
		u.script = &stream{traits: trUnknown}
	}
	return stream{}, true
}
