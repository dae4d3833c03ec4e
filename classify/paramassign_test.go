package classify

import "testing"

// ${X:=y} and ${X=y} assign y where X is empty (:=) or unset, as bash
// does, and later words see it: : ${D:=/}; rm -rf $D is rm -rf /. An X the
// line knew as set keeps its value; an X the line did not know may also
// hold its run-time value, so what that allows stays judged as run-time.
func TestParamAssignDefault(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`D=x; : ${D:=/}; rm -rf $D`, Sandboxed},  // control: D set, stays x
		{`D=; : ${D=/}; rm -rf $D`, Sandboxed},    // control: D set (empty), stays empty
		{`: ${D:=build}; rm -rf "$D"`, Escalated}, // control: D may be set at run time
		{`: ${C:=ls}; $C`, Escalated},             // control: still a run-time program
		{`: ${D:=/}; rm -rf $D`, Forbidden},
		{`: ${D=/}; rm -rf $D`, Forbidden},
		{`: "${D:=/}"; rm -rf "$D"`, Forbidden},
		{`echo ${D:=/} >/dev/null; rm -rf "$D/"`, Forbidden},
		{`D=; : ${D:=/}; rm -rf $D`, Forbidden},
		{`D=; : ${D:=build}; rm -rf $D`, Sandboxed},
		{`D=$(mktemp -d); : ${D:=/}; rm -rf "$D"`, Forbidden}, // mktemp may print nothing
		{`rm -rf ${D:=/} $D`, Forbidden},
		{`: ${O:="-rf /"}; rm $O`, Forbidden},
		{`: ${D:=$(pwd)}; rm -rf "$D"`, Escalated},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%s: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
