package classify

import "testing"

// TestRedteam29PrintfFormats: the fix for TestRedteam28ElemWrites models
// printf -v only for a format that is exactly %s (or a format with no
// conversion and no escape). Any other spelling of the same literal value
// is dropped, and $((i)) then evaluates x[$(rm -rf /)] while the line is
// "allow": %b, %-s, %5s, %.99s, %*s, '%s\n', an octal/hex escape in the
// format ('\170' and '\x78' are x), "--" before the format, and the
// option glued to its name (-vi). Every value is a literal on the line
// (not the README's run-time limit); bash runs the substitution in each
// (marker checked by rt28Judge). Severity: high (an allowed line runs
// rm -rf /; the sandbox still applies). Fix: printf -v must compute the
// value as bash's printf does (flags, width, precision, %b, escapes in
// the format, -- and -vNAME), or make the named variable a run-time
// value that arithmetic treats as unknown code (escalate), never keep the
// stale/unset value.
// Fixed: printfArgs parses -vNAME and --; any form printfPlain does not
// compute exactly stores printfStream's output (flags, widths, precisions
// ignored, escapes and %b decoded) as a possible value (varVal.dflt),
// which arithVar follows.
func TestRedteam29PrintfFormats(t *testing.T) {
	rt28Judge(t, []string{
		`printf -v i '%b' 'x[$(CMD)]'; echo $((i))`,
		`printf -v i '%-s' 'x[$(CMD)]'; echo $((i))`,
		`printf -v i '%5s' 'x[$(CMD)]'; echo $((i))`,
		`printf -v i '%.99s' 'x[$(CMD)]'; echo $((i))`,
		`printf -v i '%*s' 1 'x[$(CMD)]'; echo $((i))`,
		`printf -v i '%s\n' 'x[$(CMD)]'; echo $((i))`,
		`printf -v i '\170[$(CMD)]'; echo $((i))`,
		`printf -v i '\x78[$(CMD)]'; echo $((i))`,
		`printf -v i -- '%s' 'x[$(CMD)]'; echo $((i))`,
		`printf -vi '%s' 'x[$(CMD)]'; echo $((i))`,
	})
}

// TestRedteam29NamerefLaterTarget: TestRedteam28ElemWrites' fix keeps the
// line's variables as possible values of a nameref declared without a
// target only when the target is given by a plain assignment (r=i). Bash
// gives an unset nameref its target on any write to it: printf -v r,
// read r, mapfile r, ${r:=i} and a for loop over r all make r point at i,
// and $((r)) then evaluates i's text x[$(rm -rf /)]. Each line is "allow";
// bash runs the substitution (marker checked by rt28Judge). All values
// are literals on the line. Severity: high. Fix: every write the
// classifier models (setsOption builtins, read/mapfile, ${r:=}, for) to a
// nameref with no known target must do what r=i does (clobberVarsKeep),
// or mark the nameref's reads as run-time code to escalate.
// Fixed: builtinAssigns sets each name once with its final value
// (builtinVals), so printf -v r / read r name the target as r=i does;
// a write through a run-time target keeps every variable's value as a
// possible one (clobberVarsKeep, not clobberVars), and arithmetic through
// a nameref with a run-time target follows them all (arithAnyVar).
func TestRedteam29NamerefLaterTarget(t *testing.T) {
	rt28Judge(t, []string{
		`i='x[$(CMD)]'; declare -n r; printf -v r i; echo $((r))`,
		`i='x[$(CMD)]'; declare -n r; printf -v r %s i; echo $((r))`,
		`i='x[$(CMD)]'; declare -n r; read r <<< i; echo $((r))`,
		`i='x[$(CMD)]'; declare -n r; mapfile -t r <<< i; echo $((r))`,
		`i='x[$(CMD)]'; declare -n r; : ${r:=i}; echo $((r))`,
		`i='x[$(CMD)]'; declare -n r; for r in i; do :; done; echo $((r))`,
	})
}

// TestRedteam29PipedRead: the classifier folds $(echo 'x[$(rm -rf /)]')
// into i and forbids $((i)), but the same literal text handed to read
// through a pipe (with lastpipe or in a group) or a process substitution
// is not followed: each line is "allow" and bash runs the inner
// substitution. The value is a literal echoed on the line, not a file's
// or a program's output, though the README's "run-time values" limit
// could be read to cover a pipe. Severity: medium (same consequence as
// the others, but a fix may reasonably choose to escalate rather than
// model). Fix: read/mapfile fed by echo/printf of literals through a pipe
// or <(…) get the text as from a here-string, or arithmetic on a value
// read from a pipe on the line escalates.
// Fixed: readHereVars no longer drops an input text that is not exact
// and holds $ or a backquote: its split values become possible values
// (possibleVals), which arithmetic follows.
func TestRedteam29PipedRead(t *testing.T) {
	rt28Judge(t, []string{
		`read i < <(echo 'x[$(CMD)]'); echo $((i))`,
		`read < <(echo 'x[$(CMD)]'); echo $((REPLY))`,
		`mapfile -t a < <(echo 'x[$(CMD)]'); echo $((a[0]))`,
		`echo 'x[$(CMD)]' | { read i; echo $((i)); }`,
		`shopt -s lastpipe; echo 'x[$(CMD)]' | read i; echo $((i))`,
	})
}

// TestRedteam29NamerefElemWrite: a write through a nameref to an element
// is placed only when the element's subscript is a plain number:
// declare -n r='a[1]'; r='x[$(rm -rf /)]'; echo $((a[1])) is forbidden,
// but the same with 'a[-1]' or 'a[1+0]' (bash: the same elements a[2] and
// a[1]) is "allow", as is a target-less nameref given 'a[1]' later
// (declare -n r; r='a[1]'; r=i). This is TestRedteam28ElemWrites' class
// (constant subscripts computed as bash does) reached through a nameref;
// the README's "a write through that nameref makes the line's variables
// run-time values" is not what happens for 'a[1]', so the gap is in the
// placing, not a documented limit. Bash runs the substitution in each.
// Severity: high. Fix: resolve a nameref's element target with the same
// elemKey/constArith code as a direct a[-1]= write (an unplaceable key
// leaving the array's texts as possible values), including a target
// given after declare -n.
// Fixed: setVar writes through a nameref to an element with
// builtinElems (elemWritten/elemUnknown, constant subscripts computed as
// for a[-1]=), and no longer clobbers every variable.
func TestRedteam29NamerefElemWrite(t *testing.T) {
	rt28Judge(t, []string{
		`a=(1 2 3); declare -n r='a[-1]'; r='x[$(CMD)]'; echo $((a[2]))`,
		`a=(1 2 3); declare -n r='a[1+0]'; r='x[$(CMD)]'; echo $((a[1]))`,
		`i='x[$(CMD)]'; a=(1 2); declare -n r; r='a[1]'; r=i; echo $((a[1]))`,
	})
}
