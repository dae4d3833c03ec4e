package classify

import (
	"strings"
	"testing"
)

// rt30eJudge runs each template in bash with CMD a harmless touch (the
// premise: bash runs it) and asserts the classifier, with CMD rm -rf /,
// neither allows nor merely sandboxes the line; control must stay allow.
func rt30eJudge(t *testing.T, control string, attacks []string) {
	t.Helper()
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Classify(control); got.Decision != Allow {
		t.Errorf("benign control %q: %s (%s), want allow", control, got.Decision, got.Rule)
	}
	for _, tmpl := range attacks {
		bashRunsPayload(t, tmpl)
		line := strings.ReplaceAll(tmpl, "CMD", "rm -rf /")
		if got := c.Classify(line); got.Decision == Allow || got.Decision == Sandboxed {
			t.Errorf("%q: %s (rule %q), want forbidden or escalated", line, got.Decision, got.Rule)
		}
	}
}

// TestRedteam30RefDropFlags: refdrop.go takes a nameref r as dropped
// (a plain variable from then on) on any declare/typeset/local word
// starting with + and holding n, and on any unset option word holding n.
// Bash keeps r a nameref in each line below, so the later r='rm -rf /'
// writes c, and $c runs rm -rf /; the classifier, taking r as plain and
// c as "ls", judges each line "allow" (common-safe-commands):
//   - unset -fn r / -nf / -n -f: with -f, unset removes a function r and
//     leaves the nameref alone;
//   - declare +n -f r / declare -f +n r: -f works on functions, r's
//     attributes are untouched;
//   - local +n r outside a function: local fails, nothing changes;
//   - declare -- +n r: after --, +n is an (invalid) name, not an option;
//   - declare +n r='…': bash assigns through the nameref first (c gets
//     the value), then drops the attribute; the model gives the value to r;
//   - declare +n r </nonexist, unset -n r </nonexist: a failed
//     redirection means the builtin never runs, the nameref stays.
//
// Every value is a literal on the line. Severity: high (an allowed line
// runs rm -rf /; the sandbox still applies). Fix: drop the link only when
// the builtin surely drops it (no -f, +n before any --, declare/typeset
// anywhere but local only inside a function, no redirection that may
// fail — or join both states), and for declare +n r=value assign value
// to the old target before dropping.
// Fixed: refdrop.go declDrop/unsetDrop parse the options as bash does
// (-f/-F/-p, --, local only in a function), decl assigns r=value through
// the link before applyDrop, and a redirection that may fail (declare's
// in stmtCmd, unset's in builtinAssigns) joins both states.
func TestRedteam30RefDropFlags(t *testing.T) {
	rt30eJudge(t, `c=ls; declare -n r=c; declare +n r; r=pwd; $c`, []string{
		`c=ls; declare -n r=c; unset -fn r; r='CMD'; $c`,
		`c=ls; declare -n r=c; unset -nf r; r='CMD'; $c`,
		`c=ls; declare -n r=c; unset -n -f r; r='CMD'; $c`,
		`c=ls; declare -n r=c; declare +n -f r; r='CMD'; $c`,
		`c=ls; declare -n r=c; declare -f +n r; r='CMD'; $c`,
		`c=ls; declare -n r=c; local +n r; r='CMD'; $c`,
		`c=ls; declare -n r=c; declare -- +n r; r='CMD'; $c`,
		`c=ls; declare -n r=c; declare +n r='CMD'; $c`,
		`c=ls; declare -n r=c; declare +n r </nonexist/x; r='CMD'; $c`,
		`c=ls; declare -n r=c; unset -n r </nonexist/x; r='CMD'; $c`,
	})
}
