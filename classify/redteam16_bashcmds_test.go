package classify

import "testing"

// Red team 16: BASH_CMDS is bash's command hash table as an associative
// array: assigning BASH_CMDS[NAME]=PATH binds NAME to PATH like hash -p
// (checked: BASH_CMDS[x]=/bin/echo; x hi prints hi). The classifier treats
// it as an ordinary variable, so `BASH_CMDS[ls]=/bin/rm; ls -rf /` is
// judged as `ls -rf /` (allow) while bash runs /bin/rm -rf /. The controls:
// an ordinary array assignment and the direct delete.
// Fixed: any assignment to BASH_CMDS is eval-exec, and the entries the line
// knows bind names as hash -p does.
func TestRedteam16BashCmds(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		{`M[ls]=/bin/rm; ls -la`, Allow, true}, // control
		{`/bin/rm -rf /`, Forbidden, false},    // control
		{`BASH_CMDS[ls]=/bin/rm; ls -la`, Escalated, false},
		{`BASH_CMDS[$k]=/bin/rm; ls -la`, Escalated, false},
		{`read 'BASH_CMDS[ls]' <<< /bin/rm; ls -la`, Escalated, false},
		{`printf -v 'BASH_CMDS[ls]' /bin/rm; ls -la`, Escalated, false},
		{`declare BASH_CMDS[ls]=/bin/rm; ls -rf /`, Forbidden, false},
		{`declare -n r=BASH_CMDS; r[ls]=/bin/rm; ls -rf /`, Forbidden, false},
		{`BASH_CMDS[ls]=/bin/rm; ls -rf /`, Escalated, false},               // attack: allow
		{`BASH_CMDS=([ls]=/bin/rm); ls -rf /`, Escalated, false},            // attack: allow
		{`declare -A BASH_CMDS=([ls]=/bin/rm); ls -rf /`, Escalated, false}, // attack: allow
		{`BASH_CMDS[cat]=/usr/bin/sudo; cat id`, Escalated, false},          // attack: allow
		{"BASH_CMDS[ls]=/usr/bin/git\nls push", Escalated, false},           // attack: allow
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
