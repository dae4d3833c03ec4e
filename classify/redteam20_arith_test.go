package classify

import "testing"

// Red team 20: bash evaluates arithmetic recursively. A variable named in
// an arithmetic context ($((x)), (( x )), [[ $x -eq 1 ]], an integer
// variable's assignment, an indexed array's subscript ${a[x]}, a substring
// offset ${s:x}) has its VALUE parsed as an expression, and an array
// subscript in that value has its words expanded, command substitution
// included. So x='a[$(rm -rf ~)]'; echo $((x)) runs rm -rf ~. The same
// happens to a name with a subscript given to a builtin that assigns or
// tests it: let 'a[$(…)]', printf -v 'a[$(…)]', read 'a[$(…)]',
// declare 'a[$(…)]=1', ${!x} and [[ -v $x ]] with such an x, and a quoted
// literal operand of [[ … -eq … ]]. The classifier walks only the syntax
// of arithmetic (compound.go:39 walkNode, words.go:176) and treats the
// string values of variables and the quoted names as data: every attack
// below is "allow" (checked with bash 5.2.15: each deletes a fake HOME).
//
// Severity: high (any forbidden command rated allow, with its text in
// plain sight in the command). Affects both root and unprivileged callers
// (the classifier is the same for both).
//
// Fixed: walkNode (compound.go) hands every arithmetic context ($((…)),
// ((…)), let, [[ -eq … ]], subscripts, ${s:x}, ${!x}, [[ -v ]]) to
// arithNode (arith.go), which follows the values the line knows: a
// substitution in one is walked as code, and each variable it names is
// evaluated in turn; declare -i makes assignments arithmetic (attrs.go),
// and names with subscripts given to read/printf -v/let/declare have the
// subscript followed (assigns.go, vars.go). Values only known at run time
// are not judged (see arith.go: they are nearly always numbers).
func TestRedteam20ArithSubscript(t *testing.T) {
	rt20Check(t, []rt20Case{
		// Attacks: all allow today.
		{`x='a[$(rm -rf ~)]'; echo $((x))`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; (( x ))`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; [[ $x -eq 1 ]]`, Forbidden, false},
		{`[[ 'a[$(rm -rf ~)]' -eq 1 ]]`, Forbidden, false},
		{`declare -i n; n='a[$(rm -rf ~)]'`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; arr=(1); echo ${arr[x]}`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; s=abc; echo ${s:x}`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; echo ${!x}`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; [[ -v $x ]]`, Forbidden, false},
		{`let 'a[$(rm -rf ~)]'`, Forbidden, false},
		{`printf -v 'a[$(rm -rf ~)]' 1`, Forbidden, false},
		{`read 'a[$(rm -rf ~)]' <<< 1`, Forbidden, false},
		{`declare 'a[$(rm -rf ~)]=1'`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; read "$x" <<< 1`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; printf -v "$x" 1`, Forbidden, false},
		{`x='a[$(cat ~/.ssh/id_rsa)]'; echo $((x))`, Escalated, false},

		// Controls: the same forms with plain values stay allowed.
		{`(( a[$(rm -rf ~)] ))`, Forbidden, false}, // already caught
		{`x=1; echo $((x))`, Allow, true},
		{`x=1; (( x ))`, Allow, true},
		{`x=1; [[ $x -eq 1 ]]`, Allow, true},
		{`declare -i n; n=5`, Allow, true},
		{`x=0; arr=(1); echo ${arr[x]}`, Allow, true},
		{`x=1; s=abc; echo ${s:x}`, Allow, true},
		{`y=1; x=y; echo ${!x}`, Allow, true},
		{`let 'a[1]=2'`, Allow, true},
		{`printf -v 'a[1]' 1`, Allow, true},
		{`read 'a[1]' <<< 1`, Allow, true},
		{`declare 'a[1]=1'`, Allow, true},
	})
}
