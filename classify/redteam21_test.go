package classify

import "testing"

// Red team 21: bypasses found around the red-team-20 fixes (arith.go,
// valuecode.go, implicitvars.go, envconfig.go, shells.go). Every attack
// below was run for real with bash 5.2.15 / git 2.39.5 under a fake HOME
// (/var/tmp), with touch ~/pwned in place of rm -rf ~: each one ran its
// payload. The tables use the rt20Case helper (redteam20_helpers_test.go):
// attacks must reach at least the strict decision, controls keep theirs
// exactly.

// TestRedteam21ArithAssignIndex: the subscript of an indexed array in an
// assignment (b[x]=1, b=([x]=1), b+=([x]=1), declare b[x]=1, local
// b[x]=1, declare -a b=([x]=1)) and in unset (unset 'a[x]', unset a[x],
// unset 'a[$(…)]') is arithmetic, exactly like ${b[x]}: a variable it
// names has its value evaluated, and a subscript in that value runs its
// $(…). arithNode (arith.go:30) only sees ParamExp indexes, ArithmExp,
// ArithmCmd, let and [[ ]]; the Index of an Assign / ArrayElem and unset's
// words are never given to arith or nameText. Every attack is "allow"
// (local in a function: "sandboxed").
//
// Severity: high (rm -rf ~ rated allow, payload in plain sight). Affects
// both root and unprivileged callers.
//
// Fixed: subscripts.go: the index of an assigned element (call.go, decl
// in vars.go, arrayValue) goes to arith unless the array was declared -A
// (a new attribute, attrAssoc), and unset's words to nameText, which only
// expands an associative array's key.
func TestRedteam21ArithAssignIndex(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`x='a[$(rm -rf ~)]'; b[x]=1`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; b[$x]=1`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; b=([x]=1)`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; b+=([x]=1)`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; declare -a b=([x]=1)`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; declare b[x]=1`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; f(){ local b[x]=1; }; f`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; a=(1); unset 'a[x]'`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; a=(1); unset a[x]`, Forbidden, false},
		{`a=(1); unset 'a[$(rm -rf ~)]'`, Forbidden, false},

		// Controls.
		{`x='a[$(rm -rf ~)]'; ((b[x]++))`, Forbidden, false}, // already caught
		{`a=(1 2); i=1; a[i]=3`, Allow, true},
		{`a=(1 2); i=1; a=([i]=3)`, Allow, true},
		{`a=(1 2); i=1; a+=([i]=3)`, Allow, true},
		{`i=1; declare -a b=([i]=3)`, Allow, true},
		{`i=1; declare b[i]=1`, Allow, true},
		{`a=(1); i=0; unset 'a[i]'`, Allow, true},
		{`a=(1); unset 'a[0]'`, Allow, true},
		// Everyday loops stay as they were.
		{`for i in $(seq 5); do a[i]=$((i*2)); done`, Allow, true},
		{`i=0; while read -r l; do a[i++]=$l; done < f`, Allow, true},
		// An associative array's subscript is a key, not arithmetic.
		{`declare -A m; k='a[$(rm -rf ~)]'; m[k]=1`, Allow, true},
		{`declare -A m; k='a[$(rm -rf ~)]'; m=([k]=1)`, Allow, true},
		{`declare -A m=([k]=1); unset 'm[k]'`, Allow, true},
		{`declare -A m; unset 'm[$(rm -rf ~)]'`, Forbidden, false},
	})
}

// TestRedteam21ArithForLoop: the three expressions of for ((init; cond;
// post)) are arithmetic, but arithNode (arith.go:30) has no case for
// *syntax.CStyleLoop, so a variable named there is not followed:
// x='a[$(rm -rf ~)]'; for ((i=x; …)) runs rm -rf ~ and is "allow", while
// (( x )) is forbidden.
//
// Severity: high. Affects both root and unprivileged callers.
//
// Fixed: arithNode follows the three expressions of a CStyleLoop.
func TestRedteam21ArithForLoop(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`x='a[$(rm -rf ~)]'; for ((i=x; i<1; i++)); do :; done`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; for ((;x;)); do break; done`, Forbidden, false},

		// Controls.
		{`x='a[$(rm -rf ~)]'; (( x ))`, Forbidden, false},
		{`for ((i=0; i<3; i++)); do echo $i; done`, Allow, true},
		{`n=3; for ((i=0; i<n; i++)); do echo $i; done`, Allow, true},
	})
}

// TestRedteam21ArithIntAttr: assignments to an integer variable evaluate
// the value as arithmetic. declare -i n; n='a[$(…)]' is caught, but not
// the other ways to assign: n+='…' (append is arithmetic addition),
// b[0]='…' on declare -ai b, b+=(… '…') on declare -i b, and the default
// operator ${n:='…'}. intValue (arith.go:177) is reached only from the
// plain-assignment path in attrs.go. All "allow".
//
// Severity: high. Affects both root and unprivileged callers.
//
// Fixed: intAssign (subscripts.go) evaluates the value of an append, an
// element assignment and array-literal elements given to a -i variable;
// intValue follows the default ${n:=V} leaves in a run-time n.
func TestRedteam21ArithIntAttr(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`declare -i n; n+='a[$(rm -rf ~)]'`, Forbidden, false},
		{`declare -ai b; b[0]='a[$(rm -rf ~)]'`, Forbidden, false},
		{`declare -i b; b+=(1 'a[$(rm -rf ~)]')`, Forbidden, false},
		{`declare -i n; : ${n:='a[$(rm -rf ~)]'}`, Forbidden, false},

		// Controls.
		{`declare -i n; n='a[$(rm -rf ~)]'`, Forbidden, false}, // already caught
		{`declare -i n; n+=1`, Allow, true},
		{`declare -ai b; b[0]=5`, Allow, true},
		{`declare -i b; b+=(1 2)`, Allow, true},
		{`declare -i n; : ${n:=5}`, Allow, true},
		{`declare -i n=0; for f in *; do n+=1; done; echo $n`, Allow, true},
	})
}

// TestRedteam21ArithElementValue: $((m[k])) evaluates the ELEMENT m[k],
// but arithVar (arith.go:133) always follows an array's first element
// (and for an associative array declared with declare -A, whose values
// sit under keys, finds nothing): declare -A m=([k]='a[$(rm -rf ~)]');
// echo $((m[k])) runs rm -rf ~ and is "allow".
//
// Severity: high. Affects both root and unprivileged callers.
//
// Fixed: arithElemVal (arith.go) takes the subscripted element of an
// indexed array when the index is known, and every element otherwise (an
// associative array's keys are not tracked). An element literal [k]=$x is
// no longer word-split.
func TestRedteam21ArithElementValue(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`declare -A m=([k]='a[$(rm -rf ~)]'); echo $((m[k]))`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; declare -A m=([k]=$x); echo $((m[k]))`, Forbidden, false},

		// Controls.
		{`x=(1 'a[$(rm -rf ~)]'); echo $((x[1]))`, Forbidden, false}, // already caught
		{`declare -A m=([k]=1); echo $((m[k]))`, Allow, true},
		{`x=(1 'a[$(rm -rf ~)]'); echo $((x[0]))`, Allow, true},
	})
}

// TestRedteam21TestVarSet: the test and [ builtins' -v NAME evaluate a
// subscript in NAME exactly as [[ -v NAME ]] does (bash test.c), running
// its $(…). arithNode handles only the [[ ]] UnaryTest (arith.go:55); test
// -v 'a[$(rm -rf ~)]', [ -v … ] and [ -v "$x" ] are "allow".
//
// Severity: high. Affects both root and unprivileged callers.
//
// Fixed: testVarSet (subscripts.go) gives the word after -v of test and [
// to nameText.
func TestRedteam21TestVarSet(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`test -v 'a[$(rm -rf ~)]'`, Forbidden, false},
		{`[ -v 'a[$(rm -rf ~)]' ]`, Forbidden, false},
		{`x='a[$(rm -rf ~)]'; [ -v "$x" ]`, Forbidden, false},

		// Controls.
		{`[[ -v 'a[$(rm -rf ~)]' ]]`, Forbidden, false}, // already caught
		{`test -v HOME`, Allow, true},
		{`[ -v 'a[1]' ]`, Allow, true},
		{`x=HOME; [ -v "$x" ]`, Allow, true},
	})
}

// TestRedteam21NamerefSubscript: a nameref may name an array element
// (declare -n r='a[$(…)]'); every use of r, read or write, expands that
// subscript and runs its $(…). The nameref's target is not given to
// nameText. Both forms are "allow".
//
// Severity: high. Affects both root and unprivileged callers.
//
// Fixed: declareRef, and setVar binding a nameref declared without a
// target, give the target to nameText.
func TestRedteam21NamerefSubscript(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`declare -n r='a[$(rm -rf ~)]'; echo $r`, Forbidden, false},
		{`declare -n r='a[$(rm -rf ~)]'; r=1`, Forbidden, false},

		// Controls.
		{`y=1; declare -n r=y; echo $r`, Allow, true},
		{`declare -n r='a[1]'; echo $r`, Allow, true},
	})
}

// TestRedteam21IntReadValue: read and mapfile into an integer variable
// evaluate the text read as arithmetic. With a here-string the text is in
// plain sight, yet the classifier takes it as a run-time value, which
// arith.go deliberately does not judge. This sits on the "run-time values
// are not escalated" boundary, but the value is a literal of the line,
// not a program's output. Both "allow".
//
// Severity: medium. Affects both root and unprivileged callers.
//
// Fixed: intRead (subscripts.go) evaluates a known standard input read
// into a -i variable; input only known at run time stays unjudged, as
// other run-time values are (arith.go).
func TestRedteam21IntReadValue(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`declare -i n; read n <<< 'a[$(rm -rf ~)]'`, Escalated, false},
		{`declare -i n; mapfile n <<< 'a[$(rm -rf ~)]'`, Escalated, false},

		// Controls.
		{`read n <<< 'a[$(rm -rf ~)]'`, Allow, true},
		{`declare -i n; read n <<< 5`, Allow, true},
	})
}

// TestRedteam21ImplicitVars: more variables bash sets without the line
// naming them, so that a value the line gave them earlier is stale:
//   - $_ is the last word of the previous command (_=… is overwritten);
//   - select stores the line it reads in REPLY (only read, mapfile and
//     getopts are in implicitTargets, implicitvars.go:26);
//   - cd sets OLDPWD to the directory it left;
//   - pushd/popd/cd rewrite DIRSTACK (DIRSTACK[0] is $PWD).
//
// In each attack the line first gives the variable a harmless known
// value, and the classifier keeps it: "sandboxed". Without the first
// assignment the same commands are escalated, so the strict decision is
// at least escalated.
//
// Severity: high (rm -rf ~ / eval of attacker text run in the sandbox
// with no escalation). Affects both root and unprivileged callers.
//
// Fixed: setVar never keeps a value for _; select leaves REPLY a run-time
// value (flow.go); cd, pushd and popd are implicitTargets setting OLDPWD
// and DIRSTACK (run-time values rather than derived from the tracked
// directories: simpler, and no control needs more).
func TestRedteam21ImplicitVars(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`_='echo hi'; : 'rm -rf ~'; eval "$_"`, Escalated, false},
		{`REPLY='echo hi'; select x in a; do break; done <<< 'rm -rf ~'; eval "$REPLY"`, Escalated, false},
		{`OLDPWD=/tmp/x; cd ~; cd /tmp; rm -rf "$OLDPWD"`, Escalated, false},
		{`DIRSTACK=(/tmp/x); pushd ~ >/dev/null; rm -rf "${DIRSTACK[0]}"`, Escalated, false},

		// Controls.
		{`: 'rm -rf ~'; eval "$_"`, Escalated, false},
		{`cd ~; cd /tmp; rm -rf "$OLDPWD"`, Escalated, false},
		{`_=x; : hi; echo "$_"`, Allow, true},
		{`select x in a b; do break; done <<< 1; echo "$REPLY"`, Allow, true},
		{`OLDPWD=/tmp/x; cd /tmp; echo "$OLDPWD"`, Allow, true},
		{`pushd /tmp >/dev/null; echo "${DIRSTACK[0]}"`, Allow, true},
	})
}

// TestRedteam21GitConfigSources: git reads configuration from more places
// than GIT_CONFIG_COUNT and GIT_CONFIG_PARAMETERS:
//   - git --config-env=KEY=VAR (or --config-env KEY=VAR) sets KEY to the
//     value of VAR: runGit (rules_git.go:58) only reads -c/--config;
//     "allow";
//   - GIT_CONFIG_GLOBAL / GIT_CONFIG_SYSTEM name a config file, here one
//     written earlier on the line: "sandboxed";
//   - git config -f FILE KEY VALUE: nonOptions (rules_git.go:112) keeps
//     FILE, so ops[0] is the file name and the command-running value is
//     not judged: "escalated" (git-write), not forbidden.
//
// Severity: high for --config-env (rm -rf ~ rated allow), medium for the
// others. Affects both root and unprivileged callers.
//
// Fixed: runGit reads --config-env=KEY=VAR as -c KEY=$VAR
// (gitConfigEnvArgs, envconfig.go); GIT_CONFIG_GLOBAL/SYSTEM set to
// anything but /dev/null make the call run unknown code (eval-exec,
// escalated) rather than checking the file; git config's operands skip
// the values of -f/--file/--blob (gitConfigOperands; nonOptions, used by
// gitConfigWrites, is unchanged so no verdict of git config moves).
func TestRedteam21GitConfigSources(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`X='rm -rf ~;' git --config-env=core.fsmonitor=X status`, Forbidden, false},
		{`export X='rm -rf ~;'; git --config-env core.fsmonitor=X status`, Forbidden, false},
		{`X='!rm -rf ~' git --config-env=alias.x=X x`, Forbidden, false},
		{`printf '[core]\n\tfsmonitor = rm -rf ~;\n' > /tmp/c; GIT_CONFIG_GLOBAL=/tmp/c git status`, Escalated, false},
		{`printf '[core]\n\tfsmonitor = rm -rf ~;\n' > /tmp/c; GIT_CONFIG_SYSTEM=/tmp/c git status`, Escalated, false},
		{`git config -f /tmp/c core.fsmonitor 'rm -rf ~;'`, Forbidden, false},

		// Controls.
		{`git -c core.fsmonitor='rm -rf ~;' status`, Forbidden, false},
		{`git config core.fsmonitor 'rm -rf ~;'`, Forbidden, false},
		{`X=never git --config-env=color.ui=X status`, Allow, true},
		{`GIT_CONFIG_GLOBAL=/dev/null git status`, Allow, true},
		{`git config -f /tmp/c color.ui never`, Escalated, true},
		{`git --config-env=color.ui=X status`, Allow, true},
		{`X='rm -rf ~;' git --config-env=core.fsmonitor=X -C /tmp status`, Forbidden, false},
		{`GIT_CONFIG_GLOBAL=~/.gitconfig-work git status`, Escalated, false},
		{`git config --file /tmp/c --get core.editor`, Allow, true},
	})
}

// TestRedteam21ShellEnvCode: an interactive bash expands PS0 (after
// reading a command) and PS2 (continuation prompt) from its environment,
// running their $(…); a bash started with BASH_FUNC_NAME%%='() { …; }'
// in its environment defines the function NAME, which then replaces the
// command NAME. PS4 with bash -x and export -f are caught; these are
// "sandboxed".
//
// Severity: medium (rm -rf ~ runs in the sandbox unescalated). Affects
// both root and unprivileged callers.
//
// Fixed: shellenv.go: runShell expands the substitutions of PS0, PS1 and
// PS2 in a shell's environment (any shell, interactive or not: a plain
// prompt costs nothing) and defines the functions BASH_FUNC_NAME%%
// variables pass on, in the shell's own scope, before following its
// arguments; env takes BASH_FUNC_NAME%%=… as an assignment.
func TestRedteam21ShellEnvCode(t *testing.T) {
	rt20Check(t, []rt20Case{
		{`PS0='$(rm -rf ~)' bash -i <<< 'echo hi'`, Forbidden, false},
		{`PS2='$(rm -rf ~)' bash -i <<< 'echo \'`, Forbidden, false},
		{`env 'BASH_FUNC_ls%%=() { rm -rf ~; }' bash -c ls`, Forbidden, false},

		// Controls.
		{`PS4='$(rm -rf ~)' bash -xc 'echo hi'`, Forbidden, false},
		{`ls(){ rm -rf ~; }; export -f ls; bash -c ls`, Forbidden, false},
		{`PS2='> ' bash -i <<< 'echo hi'`, Sandboxed, true},
		{`env 'BASH_FUNC_hi%%=() { echo hi; }' bash -c hi`, Sandboxed, true},
		{`export PS1='$(rm -rf ~)'; bash -i`, Forbidden, false},
	})
}
