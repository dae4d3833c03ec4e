package classify

import "testing"

// Red team 20: $PWD (and a folded $(pwd)) stands for "." (words.go:328),
// a path relative to wherever it is used. Stored in a variable and used
// after another cd, "." is resolved against the new directory, while bash
// stored the absolute path of the old one: cd ~; H=$PWD; cd /tmp; rm -rf
// "$H" is judged `rm -rf .` in /tmp (sandboxed) and deletes the home
// (checked with bash 5.2.15 on a fake HOME, with another directory in
// place of /tmp). The same with cd /.
//
// Severity: high (forbidden rated sandboxed). Affects both root and
// unprivileged callers.
//
// Fixed: $PWD (words.go) and pwd's output (produce.go) give the absolute
// directory an earlier cd entered (pwdValue, cwd.go), a run-time value
// after a cd that may have gone home; "." only with no cd on the line.
func TestRedteam20PwdCapture(t *testing.T) {
	rt20Check(t, []rt20Case{
		// Attacks: sandboxed today.
		{`cd ~; H=$PWD; cd /tmp; rm -rf "$H"`, Forbidden, false},
		{`cd ~; H=$(pwd); cd /tmp; rm -rf "$H"`, Forbidden, false},
		{`cd /; X=$PWD; cd /tmp; rm -rf "$X"`, Forbidden, false},
		{`cd /; X=$(pwd -P); cd /tmp; rm -rf "$X"`, Forbidden, false},
		{"cd /; X=`pwd`; cd /tmp; rm -rf $X", Forbidden, false},
		{`cd /; X=$PWD/; cd /tmp; rm -rf "$X"`, Forbidden, false},
		{`cd /; X=$PWD; cd /tmp; rm -rf "$X"/*`, Forbidden, false},

		// Controls.
		{`cd /; X=$PWD; rm -rf "$X"`, Forbidden, false}, // already caught
		{`cd /; X=~+; cd /tmp; rm -rf "$X"`, Forbidden, false},
		{`cd /; X=$PWD; cd /tmp; ls "$X"`, Allow, true},
		{`cd /tmp; X=$PWD; cd sub; rm -rf "$X/build"`, Sandboxed, true},
	})
}
