package classify

import "testing"

// Red team 16: runSet (dispatch.go) records `set -- ARGS` as the positional
// parameters, but nothing follows `shift`, which drops the first ones: the
// classifier keeps reading $1 as the old first word. `set -- ls rm; shift;
// "$1" -rf /` is judged as `ls -rf /` (allow) while bash runs `rm -rf /`
// (checked: set -- ls echo; shift; "$1" hi prints hi). The controls: the
// same lines without shift, and a harmless shifted line.
// Fixed: shift N drops N positional parameters the line set, a count only
// known at run time makes them run-time values.
func TestRedteam16ShiftPositional(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		{`set -- ls rm; "$2" -rf /`, Forbidden, false},   // control
		{`set -- x /; rm -rf "$2"`, Forbidden, false},    // control
		{`set -- ls rm; "$1" -la`, Allow, true},          // control: harmless
		{`set -- rm ls; shift; "$1" -la`, Allow, true},   // control: harmless
		{`set -- ls rm; shift 3; "$1" -la`, Allow, true}, // control: shift past $# fails
		{`set -- ls rm; shift $N; "$1" -la`, Escalated, false},
		{`set -- ls rm; shift; "$1" -rf /`, Escalated, false},    // attack: allow
		{`set -- ls rm; shift; $@ -rf /`, Escalated, false},      // attack: allow
		{`set -- ls sudo; shift; "$1" id`, Escalated, false},     // attack: allow
		{`set -- x /; shift; rm -rf "$1"`, Escalated, false},     // attack: sandboxed
		{`set -- x y /; shift 2; rm -rf "$1"`, Escalated, false}, // attack: sandboxed
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
