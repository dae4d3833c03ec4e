package classify

import "testing"

// The line's state (variables, positional parameters, aliases, hash -p
// bindings, namerefs, attributes, the working directory) is tracked in one
// straight pass. What a subshell, a command or process substitution, a
// background job or a pipeline part changes stays there; after a branch, a
// loop or a function definition what may differ between the paths is a
// run-time value. Each of the attacks runs rm -rf / in bash and was allow
// (or sandboxed) while the state leaked.
func TestScopedState(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
		exact   bool
	}{
		// Attacks: run in a subshell, the change is discarded: really rm.
		{`X=rm; (X=ls); $X -rf /`, Forbidden, true},
		{`X=rm; echo $(X=ls); $X -rf /`, Forbidden, true},
		{"X=rm; echo `X=ls`; $X -rf /", Forbidden, true},
		{`X=rm; cat <(X=ls); $X -rf /`, Forbidden, true},
		{`X=rm; X=ls & $X -rf /`, Forbidden, true},
		{`X=rm; { X=ls; } & $X -rf /`, Forbidden, true},
		{`X=rm; X=ls | cat; $X -rf /`, Forbidden, true},
		{`X=rm; cat | X=ls; $X -rf /`, Forbidden, true},
		{`X=r; (X+=x); ${X}m -rf /`, Forbidden, true},
		{`set -- rm ls; (shift); "$1" -rf /`, Forbidden, true},
		{`set -- rm ls; (set -- ls); "$1" -rf /`, Forbidden, true},
		{`cd /; (cd /tmp); rm -rf *`, Forbidden, true},
		{`cd /; cd /tmp & rm -rf *`, Forbidden, true},
		{`alias ll=rm; (alias ll='ls -l'); ll -rf /`, Forbidden, true},
		{`hash -p /bin/rm ll; (hash -r); ll -rf /`, Forbidden, true},
		{`declare -n r=X; X=rm; (r=ls); $X -rf /`, Forbidden, true},
		{`(declare -u X); X=rm; $X -rf /`, Forbidden, true},
		{`X=rm; bash -c 'X=ls'; $X -rf /`, Forbidden, true},

		// Attacks: a branch, a loop body or a function body may or may not
		// run: the value is only known at run time.
		{`X=rm; if false; then X=ls; fi; $X -rf /`, Escalated, false},
		{`X=rm; if false; then :; elif false; then X=ls; else :; fi; $X -rf /`, Escalated, false},
		{`X=rm; false && X=ls; $X -rf /`, Escalated, false},
		{`X=rm; true || X=ls; $X -rf /`, Escalated, false},
		{`X=rm; case a in b) X=ls;; esac; $X -rf /`, Escalated, false},
		{`X=rm; while false; do X=ls; done; $X -rf /`, Escalated, false},
		{`X=rm; until true; do X=ls; done; $X -rf /`, Escalated, false},
		{`X=rm; for i in $L; do X=ls; done; $X -rf /`, Escalated, false},
		{`X=rm; select i in a; do X=ls; done; $X -rf /`, Escalated, false},
		{`X=rm; f() { X=ls; }; $X -rf /`, Escalated, false},
		{`X=rm; function f { X=ls; }; $X -rf /`, Escalated, false},
		{`X=r; if false; then X+=x; fi; ${X}m -rf /`, Escalated, false},
		{`set -- rm ls; if false; then shift; fi; "$1" -rf /`, Escalated, false},
		{`set -- rm ls; false && set -- ls; "$1" -rf /`, Escalated, false},
		{`cd /; if false; then cd /tmp; fi; rm -rf *`, Escalated, false},
		{`cd /; f() { cd /tmp; }; rm -rf *`, Escalated, false},
		{`alias ll='ls -l'; if false; then alias ll=rm; fi; ll -rf /`, Escalated, false},
		{`hash -p /bin/ls ll; false || hash -p /bin/rm ll; ll -rf /`, Escalated, false},
		{`declare -n r=X; X=rm; false && r=ls; $X -rf /`, Escalated, false},
		{`if false; then declare -u X; fi; X=rm; $X -rf /`, Escalated, false},
		{`X=ls; if false; then readonly X; fi; X=rm; $X -rf /`, Escalated, false},
		{`D=out; [ -n "$CI" ] && D=/; rm -rf "$D"`, Forbidden, true},
		{`D=/; [ -n "$CI" ] && D=out; rm -rf "$D"`, Forbidden, true},
		{`D=/; if [ -n "$CI" ]; then D=a; elif true; then D=b; fi; rm -rf "$D"`, Forbidden, true},
		// A later iteration sees what an earlier one assigned.
		{`X=ls; while true; do $X -rf /; X=rm; done`, Escalated, false},
		{`X=ls; for i in a b; do $X -rf /; X=rm; done`, Escalated, false},
		// A function runs where it is called, with the state there.
		{`X=ls; f() { $X -rf /; }; X=rm; f`, Forbidden, true},
		{`f() { rm -rf "$1"; }; f /`, Forbidden, true},
		{`if false; then f() { X=ls; }; fi; X=rm; f; $X -rf /`, Escalated, false},
		{`f() { X=ls; }; X=rm; unset f; f; $X -rf /`, Escalated, false},
		{`(f() { X=ls; }); X=rm; f; $X -rf /`, Forbidden, true},
		{`f() { local X=ls; }; X=rm; f; $X -rf /`, Forbidden, true},
		{`f() { X=ls; }; X=rm; unset -f f; f; $X -rf /`, Forbidden, true},
		// A trap runs later, if ever; with lastpipe a pipeline's last
		// part may run in the shell itself.
		{`X=rm; trap 'X=ls' EXIT; $X -rf /`, Escalated, false},
		{`X=ls; shopt -s lastpipe; cat | X=rm; $X -rf /`, Escalated, false},
		// eval, source and aliases run in the shell itself.
		{`X=ls; eval 'X=rm'; $X -rf /`, Forbidden, true},
		{`X=ls; echo 'X=rm' > x.sh; source x.sh; $X -rf /`, Forbidden, true},
		{`shopt -s expand_aliases; alias s='X=rm'; X=ls; s; $X -rf /`, Forbidden, true},

		// Controls.
		{`X=ls; if true; then :; fi; $X -la`, Allow, true},
		{`X=ls; if true; then X=ls; else X=ls; fi; $X -la`, Allow, true},
		{`X=rm; if true; then X=ls; $X -la; fi`, Allow, true},
		{`X=rm; if true; then X=ls; $X -rf /; fi`, Allow, true},
		{`for f in a b; do echo $f; done`, Allow, true},
		{`for f in *.txt; do echo "$f"; done; ls`, Allow, true},
		{`X=1; (X=2); echo $X`, Allow, true},
		{`D=out; [ -n "$CI" ] && D=ci-out; rm -rf "$D"`, Sandboxed, true},
		{`X=ls; while read l; do echo "$l"; done; $X -la`, Allow, true},
		{`X=ls; echo $(X=rm; echo hi); $X -la`, Allow, true},
		{`cd / && rm -rf *`, Forbidden, true},
		{`(cd / && rm -rf *)`, Forbidden, true},
		{`X=rm; if true; then $X -rf /; fi`, Forbidden, true},
		{`X=rm; while true; do $X -rf /; done`, Forbidden, true},
		{`X=rm; f() { $X -rf /; }`, Forbidden, true},
		{`f() { X=ls; }; X=rm; f; $X -rf /`, Sandboxed, true}, // f runs: ls -rf /
		{`X=ls; f() { local X=rm; echo "$X"; }; f; $X -la`, Sandboxed, true},
	} {
		got := c.Classify(tc.command)
		if got.Decision < tc.want || tc.exact && got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}

// Lines whose decision the scoping must not change.
func TestScopedStateUnchanged(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`(cd sub && make)`, Sandboxed},
		{`cd src && go test ./... -run TestX -count=1`, Sandboxed},
		{`X=ls; (cd sub && make); $X -la`, Sandboxed},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q), want %s", tc.command, got.Decision, got.Rule, tc.want)
		}
	}
}
