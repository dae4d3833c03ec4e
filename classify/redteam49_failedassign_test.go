package classify

import "testing"

// TestRedteam49FailedAssign: a declaration that fails leaves the variable
// as it was, and the classifier took the new value:
//
//	X=~/.ssh; local X=/tmp/x; rm -rf "$X"
//	X=~/.ssh; enable -n declare; declare X=/tmp/x; rm -rf "$X"
//
// `local` outside a function fails in bash ("can only be used in a
// function") and assigns nothing (dash stops there: a special builtin's
// error); after `enable -n declare` the name
// declare is looked up as a program, not found, and assigns nothing. Both
// delete ~/.ssh and were sandboxed; `X=~/.ssh; rm -rf "$X"` is forbidden.
//
// Severity: high (a forbidden command judged sandboxed).
// Found by red-team round 49. Fixed: local outside a function assigns
// nothing where the shell is one where it fails (bash, dash:
// noTopLocal), and either where it may not be (zsh makes it a global);
// enable -n of a builtin whose program differs, and enable -f (a shared
// object's code), are eval-exec (runEnable).
func TestRedteam49FailedAssign(t *testing.T) {
	local := `X=~/.ssh; local X=/tmp/x; rm -rf "$X"`
	enable := `X=~/.ssh; enable -n declare; declare X=/tmp/x; rm -rf "$X"`
	premises := []struct{ shell, line string }{{"bash", local}, {"bash", enable}}
	for _, p := range premises {
		if !rtHave(t, p.shell) {
			continue
		}
		home, work := rt49bHome(t)
		out := rt49bRun(t, p.shell, home, work, p.line)
		if !rt49bSSHGone(home) {
			t.Fatalf("premise: %s -c %q did not remove ~/.ssh (output %q)", p.shell, p.line, out)
		}
	}
	rtAtLeast(t, []string{"bash"}, `X=~/.ssh; rm -rf "$X"`, Forbidden) // control
	rtAtLeast(t, []string{"bash", "dash", "sh"}, local, Forbidden)
	rtAtLeast(t, []string{"bash"}, enable, Escalated)
	tests := []struct {
		line string
		want Decision
	}{
		{`enable -f ./x.so x`, Escalated},                    // loads code into the shell
		{`enable "$O" declare`, Escalated},                   // O may be -n or -f
		{`X=/tmp/x; local X=~/.ssh; rm -rf "$X"`, Sandboxed}, // bash: local fails, /tmp/x goes
		{`local X=$(rm -rf ~)`, Forbidden},                   // the words are still expanded
		// A trap's code may run in a function (set -T): local may assign.
		{`X=/tmp/x; set -T; trap 'local X=~/.ssh; rm -rf "$X"' RETURN; f() { :; }; f`, Forbidden},
		// zsh makes a global of it: either value.
		{`zsh -c 'X=/tmp/x; local X=~/.ssh; rm -rf "$X"'`, Forbidden},
		{`zsh -c 'X=~/.ssh; local X=/tmp/x; rm -rf "$X"'`, Escalated},
	}
	for _, tt := range tests {
		if r := Default().ClassifyShell("bash", tt.line); r.Decision != tt.want {
			t.Errorf("%q = %s (rule %q), want %s", tt.line, r.Decision, r.Rule, tt.want)
		}
	}
	rtBelow(t, `f() { local X=/tmp/x; rm -rf "$X"; }; f`, Escalated)
	rtBelow(t, `enable -n kill; kill %1`, Forbidden)
	rtBelow(t, `enable -a`, Escalated)
}
