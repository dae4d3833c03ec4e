package classify

import "testing"

// A function the line defines under a builtin's name (shift, set, read,
// cd, pushd, hash, eval, source) is what bash runs for that name: the
// builtin's effect never happens. The analyzer still applies the builtin's
// effect (drops $1, sets $1, reads X, changes the directory, forgets the
// hash -p binding, runs the eval string or the sourced file), and the
// benign value it believes in hides rm -rf / (checked with bash 5.2).
//
// Fixed: a call with the name of a function the line defined is still
// judged, but its builtin's effect is discarded (joined, when the function
// may not exist) and the function is followed instead.
func TestRedteam19BuiltinFunc(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		// Attacks.
		{`set -- rm ls; shift() { :; }; shift; "$1" -rf /`, Escalated, false},
		{`set -- rm; set() { :; }; set -- ls; "$1" -rf /`, Escalated, false},
		{`X=rm; read() { :; }; read X <<< ls; $X -rf /`, Escalated, false},
		{`cd /; cd() { :; }; cd /tmp; rm -rf *`, Escalated, false},
		{`cd /; pushd() { :; }; pushd /tmp; rm -rf *`, Escalated, false},
		{`hash -p /bin/rm ll; hash() { :; }; hash -r; ll -rf /`, Escalated, false},
		{`X=rm; eval() { :; }; eval X=ls; $X -rf /`, Escalated, false},
		{`X=rm; source() { :; }; echo X=ls > v.sh; source v.sh; $X -rf /`, Escalated, false},

		// Controls: the builtins themselves.
		{`set -- rm ls; shift; "$1" -la`, Allow, true},
		{`X=rm; read X <<< ls; $X -la`, Allow, true},
		{`cd /; cd /tmp; rm -rf *`, Sandboxed, true},
		{`X=rm; eval X=ls; $X -la`, Sandboxed, true},
		{`cd /; cd() { builtin cd "$@"; }; cd /tmp; ls`, Allow, true},
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}
