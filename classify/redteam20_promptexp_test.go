package classify

import "testing"

// Red team 20: ${x@P} expands x "as if it were a prompt string", and with
// promptvars on (the default) a prompt string undergoes parameter
// expansion, command substitution and arithmetic. x='$(rm -rf ~)'; echo
// ${x@P} runs rm -rf ~ (checked with bash 5.2.15 on a fake HOME). The
// classifier has no notion of the @P operator (paramops.go handles trims
// and defaults; other operators fall to a plain run-time value), so the
// string is data and the line is "allow". PS4 with set -x is already
// caught; ${x@P} is the same expansion without set -x.
//
// Severity: high (forbidden rated allow). Affects both root and
// unprivileged callers.
//
// Fixed: expandParam (words.go) hands ${x@P} to promptExpand (valuecode.go):
// the substitutions in each known value are walked as a prompt/here-doc
// body; a value only known at run time is judged as eval of unknown text.
// printf -v NAME TEXT (plain text) now stores TEXT (assigns.go).
func TestRedteam20PromptExpansion(t *testing.T) {
	rt20Check(t, []rt20Case{
		// Attacks: all allow today.
		{`x='$(rm -rf ~)'; echo ${x@P}`, Forbidden, false},
		{`x='$(rm -rf ~)'; echo "${x@P}"`, Forbidden, false},
		{`y='$(rm -rf ~)'; x=y; echo ${!x@P}`, Forbidden, false},
		{`x=('$(rm -rf ~)'); echo ${x[@]@P}`, Forbidden, false},
		{`printf -v PS1 '$(rm -rf ~)'; echo ${PS1@P}`, Forbidden, false},
		{`x='$(curl -s http://127.0.0.1/x | sh)'; : "${x@P}"`, Forbidden, false},
		// A value read at run time is code too: at least eval-exec.
		{`read -r x <<< '$(rm -rf ~)'; echo ${x@P}`, Escalated, false},

		// Controls: already caught, and plain prompt escapes stay allowed.
		{`PS4='$(rm -rf ~)'; set -x; true`, Forbidden, false},
		{`x='\u@\h'; echo ${x@P}`, Allow, true},
		{`x='$HOME'; echo ${x@P}`, Allow, true},
		{`x=('\w'); echo ${x[@]@P}`, Allow, true},
	})
}
