package classify

import "testing"

// TestRedteam42CRComment: a carriage return before '#'. dash and bash blank
// only space, tab and newline: in echo x<CR># ; rm -rf ~ the word x<CR>#
// ends at ';' and rm runs; in echo \<CR><LF>rm -rf ~ the backslash escapes
// the CR and the LF ends the echo (both run with an echo marker first).
// Found by red-team round 42 (high): mvdan.cc/sh took the CR for a blank,
// so the '#' began a comment hiding rm, and backslash-CR-LF for a line
// continuation: both lines were allowed. Fixed: a CR is read as a
// character of a word (wordCRs).
func TestRedteam42CRComment(t *testing.T) {
	rt42aCheck(t, "echo x\r# ; rm -rf ~", "echo x\r# ; echo PWNED42", Forbidden)
	// The same blank-CR reading makes backslash CR LF a line continuation
	// for mvdan (echo rm -rf ~, one command), while dash escapes the CR and
	// ends the command at the LF, so rm runs.
	rt42aCheck(t, "echo \\\r\nrm -rf ~", "echo \\\r\necho PWNED42", Forbidden)
	// Control: with a plain space the comment is real in both shells, and
	// the same line without a comment is forbidden.
	if r := Default().Classify("echo x ; rm -rf ~"); r.Decision < Forbidden {
		t.Errorf("control: echo x; rm -rf ~ = %s", r.Decision)
	}
}
