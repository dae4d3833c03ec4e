package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Names the shell resolves through a table the line can change: hash -p
// PATH NAME (and BASH_CMDS, bash's hash table as an array) makes NAME run
// PATH.

// nameTables are bash's arrays whose entries rebind program names. Any
// assignment to them is eval-exec (see loaderVars); the entries the line
// knows are followed too.
var nameTables = newSet("BASH_CMDS")

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
		f := joinField(a.expandWord(as.Value))
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
	if table == "BASH_CMDS" {
		a.rehash(w.Lit(), f)
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
	if key, ok := strings.CutSuffix(key, "]"); ok && key != "" && base == "BASH_CMDS" {
		a.rehash(key, field{dyn: true})
	}
	a.run(&unit{kind: kAssign, env: []envVar{{name: base, val: field{dyn: true}}}})
	return true
}
