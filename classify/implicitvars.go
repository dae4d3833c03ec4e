package classify

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Builtins that set a variable the command does not name: read with no
// name sets REPLY, mapfile/readarray with none MAPFILE, getopts OPTARG and
// OPTIND besides its name, [[ … =~ … ]] BASH_REMATCH, cd, pushd and popd
// OLDPWD and DIRSTACK, select REPLY (flow.go). After them the variable
// holds a run-time value, whatever the line gave it before. $_, the last
// word of the previous command, is never taken as known: every command
// sets it. Arithmetic still follows the texts the line may have put in
// OPTARG, BASH_REMATCH and $_ (maybevals.go).

// implicitTarget describes one builtin's implicit variables: def is set
// when the command names no variable; always is set by every call.
// valueOpts are its options that take the next word (or the rest of the
// cluster); nameOpts those whose value is the variable set (read -a).
type implicitTarget struct {
	def       string
	always    []string
	valueOpts string
	nameOpts  string
}

var implicitTargets = map[string]implicitTarget{
	"read":      {def: "REPLY", valueOpts: "adinNptu", nameOpts: "a"},
	"mapfile":   {def: "MAPFILE", valueOpts: "dnOsuCc"},
	"readarray": {def: "MAPFILE", valueOpts: "dnOsuCc"},
	"getopts":   {always: []string{"OPTARG", "OPTIND"}},
	"cd":        {always: dirVars},
	"pushd":     {always: dirVars},
	"popd":      {always: dirVars},
}

// dirVars are set by the builtins that change directory: DIRSTACK to the
// stack (its element 0 is $PWD); OLDPWD, to the one left, chdir sets.
var dirVars = []string{"DIRSTACK"}

// implicitSets returns the variables a builtin call sets without naming
// them.
func implicitSets(name string, args []field) []string {
	t, ok := implicitTargets[name]
	if !ok {
		return nil
	}
	out := t.always
	if t.def == "" {
		return out
	}
	named := false
	i := 0
	for ; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			i++
			break
		}
		if args[i].dyn {
			return append(out, t.def) // an option or a name only known at run time
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(t.valueOpts, v[j]) < 0 {
				continue
			}
			named = named || strings.IndexByte(t.nameOpts, v[j]) >= 0
			if j+1 == len(v) {
				i++ // the option's value is the next word
			}
			break
		}
	}
	if !named && i >= len(args) {
		out = append(out, t.def)
	}
	return out
}

// setImplicit records the variables a builtin call sets without naming
// them as run-time values. One the line never set nor made a nameref
// already reads as the environment's, a run-time value: it is left alone,
// which spares every cd a map write.
func (a *analyzer) setImplicit(name string, args []field) {
	for _, n := range implicitSets(name, args) {
		_, set := a.vars[n]
		if _, ref := a.refs[n]; set || ref {
			a.setVar(n, varVal{})
		}
	}
}

// hasReMatch reports whether a [[ ]] expression holds a =~ test.
func hasReMatch(x syntax.TestExpr) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if b, ok := n.(*syntax.BinaryTest); ok && b.Op == syntax.TsReMatch {
			found = true
		}
		return !found
	})
	return found
}
