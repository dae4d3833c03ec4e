package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Code a shell takes from its environment before it runs anything it is
// given: an interactive bash expands its prompts, PS0 after reading a
// command, PS1 before one and PS2 on a continuation line, running their
// $(…) as ${x@P} does; and bash defines a function NAME for every
// variable BASH_FUNC_NAME%%='() { …; }' (how export -f passes functions
// on), which then runs in place of the command NAME. PS4, expanded under
// -x, is a codeVar (rules_exec.go).

// promptVars are the prompts a shell expands from its environment. Any
// shell is taken as maybe interactive: only the substitutions in them are
// judged, so a plain prompt costs nothing.
var promptVars = []string{"PS0", "PS1", "PS2"}

// funcEnvPrefix and funcEnvSuffix frame the name of a function passed in
// the environment.
const (
	funcEnvPrefix = "BASH_FUNC_"
	funcEnvSuffix = "%%"
)

// runShell follows the code a shell runs: the functions and prompts its
// environment gives it, then what its arguments name (runShellArgs).
// Functions from the environment are defined in the shell's own scope
// only.
func (a *analyzer) runShell(u *unit) (stream, bool) {
	views := shellViews(u.prog)
	posix := childPosix(u, a.posix)
	noLocal := noTopLocal.has(shellName(u.prog))
	out, ok := a.inDialect(views[0], noLocal, posix, func() (stream, bool) { return a.runShellAs(u) })
	for _, v := range views[1:] {
		// The other reading's units count; its state, like a child
		// shell's, does not.
		a.isolated(func() stream {
			s, _ := a.inDialect(v, noLocal, posix, func() (stream, bool) { return a.runShellAs(u) })
			return s
		})
	}
	return out, ok
}

// childPosix is the posix mode of the shell u starts: on when it is run
// as sh or with --posix or -o posix, maybe where a word is only known at
// run time or the parent's mode may be on (POSIXLY_CORRECT may be in the
// environment), else off.
func childPosix(u *unit, parent posixMode) posixMode {
	mode := posixOff
	if parent != posixOff {
		mode = posixMaybe
	}
	if u.name == "sh" {
		return posixOn
	}
	for i, f := range u.args {
		switch {
		case f.val == "--posix" || f.val == "posix" && i > 0 && u.args[i-1].val == "-o":
			return posixOn
		case f.dyn:
			mode = posixMaybe
		}
	}
	return mode
}

// inDialect walks what f walks with text read as lang reads it by a shell
// where local outside a function fails where noLocal is set, in the posix
// mode given.
func (a *analyzer) inDialect(lang syntax.LangVariant, noLocal bool, posix posixMode, f func() (stream, bool)) (stream, bool) {
	savedLang, savedNoLocal, savedPosix := a.lang, a.noLocal, a.posix
	a.lang, a.noLocal, a.posix = lang, noLocal, posix
	defer func() { a.lang, a.noLocal, a.posix = savedLang, savedNoLocal, savedPosix }()
	return f()
}

// runShellAs is runShell in the dialect being walked.
func (a *analyzer) runShellAs(u *unit) (stream, bool) {
	for _, n := range promptVars {
		if f, set := a.envField(u, n); set && !f.dyn {
			a.expansionCode(f.val)
		}
	}
	defs := a.envFuncs(u)
	if defs == "" {
		return a.runShellArgs(u)
	}
	var out stream
	a.isolated(func() stream {
		a.sameShell(defs, nil)
		out, _ = a.runShellArgs(u)
		return out
	})
	return out, true
}

// envFuncs returns shell text defining the functions BASH_FUNC_NAME%%
// variables of u's environment pass on. A body only known at run time is
// judged as eval of it.
func (a *analyzer) envFuncs(u *unit) string {
	var b strings.Builder
	for _, e := range u.env {
		if !isEnvFunc(e.name + "=") {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(e.name, funcEnvPrefix), funcEnvSuffix)
		if e.val.dyn {
			a.runtimeCode(e.name)
			continue
		}
		b.WriteString(name + " " + e.val.val + "\n")
	}
	return b.String()
}

// isEnvFunc reports whether an environment word (env NAME=VALUE) passes a
// function on: BASH_FUNC_NAME%%=….
func isEnvFunc(v string) bool {
	k, _, ok := strings.Cut(v, "=")
	return ok && len(k) > len(funcEnvPrefix)+len(funcEnvSuffix) && strings.HasPrefix(k, funcEnvPrefix) && strings.HasSuffix(k, funcEnvSuffix)
}
