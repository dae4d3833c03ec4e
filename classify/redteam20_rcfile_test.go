package classify

import "testing"

// Red team 20: bash --rcfile FILE -i (and --init-file) sources FILE
// before anything else, like bash -c '. FILE'. A script written earlier on
// the line and then sourced that way is judged as if it ran for `. e.sh`
// and `bash -c '. e.sh'` (forbidden), but `echo 'rm -rf ~' > e.sh; bash
// --rcfile e.sh -i` is sandboxed and deletes the home (checked with bash
// 5.2.15 on a fake HOME, stdin /dev/null; also with -ic true).
//
// Severity: high (forbidden rated sandboxed). Affects both root and
// unprivileged callers.
//
// Fixed: runShell (shells.go) sources the --rcfile/--init-file FILE of an
// interactive bash (-i, or no -c and no script) as . FILE first.
func TestRedteam20RcFile(t *testing.T) {
	rt20Check(t, []rt20Case{
		// Attacks: sandboxed today.
		{`echo 'rm -rf ~' > e.sh; bash --rcfile e.sh -i`, Forbidden, false},
		{`echo 'rm -rf ~' > e.sh; bash --init-file e.sh -i`, Forbidden, false},
		{`echo 'rm -rf ~' > e.sh; bash --rcfile e.sh -ic true`, Forbidden, false},

		// Controls.
		{`echo 'rm -rf ~' > e.sh; bash -c '. e.sh'`, Forbidden, false},
		{`echo 'ls' > e.sh; bash --rcfile e.sh -i`, Sandboxed, true},
	})
}
