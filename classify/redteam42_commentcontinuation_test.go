package classify

import (
	"strings"
	"testing"
)

// rt42bJudge runs each template in bash with CMD a harmless touch (the
// premise: bash -c runs it) and asserts the classifier, with CMD
// rm -rf ~, judges the line forbidden; control must stay allow.
func rt42bJudge(t *testing.T, control string, attacks []string) {
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
		line := strings.ReplaceAll(tmpl, "CMD", "rm -rf ~")
		if got := c.Classify(line); got.Decision != Forbidden {
			t.Errorf("%q: %s (rule %q), want forbidden", line, got.Decision, got.Rule)
		}
	}
}

// TestRedteam42CommentContinuation: a comment that ends in a backslash
// right before the newline ("echo # note\<newline>rm -rf ~"). In bash a
// comment runs to the newline and a backslash in it is plain text, so the
// next line runs as its own command (checked with bash -c and a touch in
// place of CMD). Found by red-team round 42 (high): mvdan's lexer turns
// "\\\n" into an escaped newline before its comment loop sees it, so the
// next line's words were more arguments of the command before the
// comment ("echo rm -rf ~": allow), at top level, inside $( ), in loop
// bodies and through an alias whose text ends in "#". Fixed: the
// backslash ending a comment becomes a space before the text is judged
// (commentEnds), and an alias's expansion keeps the text after the alias
// word as written (aliasUse).
func TestRedteam42CommentContinuation(t *testing.T) {
	rt42bJudge(t, "echo hi # note", []string{
		"echo # note\\\nCMD",
		"echo hi # \\\nCMD",
		"true #\\\nCMD",
		"ls #\\\nCMD",
		"x=1 #\\\nCMD",
		"echo a # c\\\r\nCMD",
		"echo \"$(echo # c\\\nCMD)\"",
		"for i in 1; do echo # \\\nCMD; done",
		"shopt -s expand_aliases\nalias e='echo #'\ne \\\nCMD",
	})
}
