package classify

import "testing"

// TestRedteam42HeredocDelimEscape: a backslash inside a double-quoted
// here-document delimiter. In dash and bash quote removal of <<"E\"F"
// leaves the delimiter E"F (inside double quotes a backslash before " \ $
// ` is removed), so the body ends at the line E"F and the lines after it
// run (each case is run with an echo marker first). Found by red-team
// round 42 (high): mvdan.cc/sh, in POSIX and bash mode, keeps the
// backslash (delimiter E\"F), so rm -rf ~ was heredoc text to it and the
// line was allowed. Fixed: such a delimiter is a parse error, escalated
// (heredocDelims).
func TestRedteam42HeredocDelimEscape(t *testing.T) {
	for _, tc := range []struct{ dangerous, harmless string }{
		{"cat <<\"E\\\"F\"\nx\nE\"F\nrm -rf ~\nE\\\"F", "cat <<\"E\\\"F\"\nx\nE\"F\necho PWNED42\nE\\\"F"},
		{"cat <<\"E\\\\F\"\nx\nE\\F\nrm -rf ~\nE\\\\F", "cat <<\"E\\\\F\"\nx\nE\\F\necho PWNED42\nE\\\\F"},
		{"cat <<\"E\\$F\"\nx\nE$F\nrm -rf ~\nE\\$F", "cat <<\"E\\$F\"\nx\nE$F\necho PWNED42\nE\\$F"},
	} {
		rt42aCheck(t, tc.dangerous, tc.harmless, Escalated)
	}
	// Control: a plain quoted delimiter is read right and rm is caught.
	if r := Default().Classify("cat <<\"EF\"\nx\nEF\nrm -rf ~"); r.Decision < Forbidden {
		t.Errorf("control: plain heredoc then rm = %s", r.Decision)
	}
}
