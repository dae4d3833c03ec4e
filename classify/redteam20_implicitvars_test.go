package classify

import "testing"

// Red team 20: builtins that set a variable the command does not name.
// read with no name sets REPLY, mapfile/readarray with no name set
// MAPFILE, getopts sets OPTARG (and OPTIND), [[ … =~ … ]] sets
// BASH_REMATCH. The classifier records only named targets (assigns.go:
// varSetters/builtinAssigns, setsNames collects only the words given;
// nothing models =~), so a benign value assigned to one of these names
// earlier on the line is believed: REPLY=ls; read -r <<< rm; $REPLY -rf ~
// is judged `ls -rf ~` (allow) while bash runs rm -rf ~ (checked with bash
// 5.2.15 on a fake HOME, for each attack below).
//
// Severity: high (forbidden rated allow). Affects both root and
// unprivileged callers.
//
// Fixed: builtinAssigns (assigns.go) makes REPLY, MAPFILE, OPTARG/OPTIND
// run-time values when read/mapfile/readarray name no variable or getopts
// runs (implicitvars.go); compound.go does the same for BASH_REMATCH
// after a [[ ]] with =~.
func TestRedteam20ImplicitVars(t *testing.T) {
	rt20Check(t, []rt20Case{
		// Attacks: all allow today.
		{`REPLY=ls; read -r <<< rm; $REPLY -rf /`, Escalated, false},
		{`REPLY=ls; read <<< rm; $REPLY -rf /`, Escalated, false},
		{`MAPFILE=(ls); mapfile <<< rm; ${MAPFILE[0]} -rf /`, Escalated, false},
		{`MAPFILE=(ls); readarray <<< rm; ${MAPFILE[0]} -rf /`, Escalated, false},
		{`OPTARG=ls; getopts a: o -a rm; $OPTARG -rf /`, Escalated, false},
		{`OPTIND=1; OPTARG=ls; while getopts a: o -a rm; do $OPTARG -rf /; done`, Escalated, false},
		{`BASH_REMATCH=(ls ls); [[ rm =~ (.*) ]]; ${BASH_REMATCH[1]} -rf /`, Escalated, false},
		{`BASH_REMATCH=(ls ls); [[ rm =~ .* ]]; $BASH_REMATCH -rf /`, Escalated, false},

		// Controls: already escalated when the name was not set first, and
		// the benign uses stay allowed.
		{`read <<< rm; $REPLY -rf /`, Escalated, false},
		{`mapfile < <(echo rm); ${MAPFILE[0]} -rf /`, Escalated, false},
		{`REPLY=ls; read -r x <<< rm; $REPLY -la`, Allow, true},
		{`MAPFILE=(ls); mapfile x <<< rm; ${MAPFILE[0]} -la`, Allow, true},
		{`OPTARG=ls; getopts a: o -a x; echo "$o"`, Allow, true},
		{`BASH_REMATCH=(ls ls); ${BASH_REMATCH[1]} -la`, Allow, true},
		{`[[ x =~ (.*) ]] && echo "${BASH_REMATCH[1]}"`, Allow, true},
	})
}
