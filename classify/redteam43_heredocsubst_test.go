package classify

import "testing"

// TestRedteam43HeredocInSubst: a here-document operator inside a command
// substitution that closes on the same line, its body on the lines after.
// In backquotes (bash and dash) and in $( ) (dash) the substitution is
// its own text: the here-document in it ends with that text (empty; bash
// warns "delimited by end-of-file"), and the lines after the closing
// backquote or parenthesis are commands of the outer shell. So in
//
//	echo `cat <<E`
//	rm -rf ~
//	E
//
// both shells run rm -rf ~ (and then a command E, not found); dash does
// the same for echo $(cat <<E). mvdan.cc/sh hands the pending
// here-document to the outer line and reads rm -rf ~ as its body: the
// line was judged allow (common-safe-commands). Found by red-team round
// 43 (high: allow for rm -rf ~ in both shells, a two-token change). bash
// 5.2 does read the body of $(cat <<E) from the lines after, as the parser
// does, so that form is checked under dash only. Fixed: such a
// here-document is a parse error, escalated (heredocs in lexfix.go).
func TestRedteam43HeredocInSubst(t *testing.T) {
	both := []string{
		"echo `cat <<E`\nCMD\nE",
		"x=`cat <<E`\nCMD\nE",
		"echo `cat <<E; echo`\nCMD\nE",
		"echo \"`cat <<E`\"\nCMD\nE",
		"echo ${x:-`cat <<E`}\nCMD\nE",
		"echo $((`cat <<E`+1))\nCMD\nE",
		"echo $(echo `cat <<E`)\nCMD\nE",
	}
	rt43bCheck(t, "bash", both, Escalated)
	rt43bCheck(t, "dash", append(both,
		"echo $(cat <<E)\nCMD\nE",
		"echo \"$(cat <<E)\"\nCMD\nE",
		"echo $(case x in x) cat <<E;; esac)\nCMD\nE",
	), Escalated)
	// Control: a here-document closed inside the substitution, then rm.
	if r := Default().ClassifyShell("dash", "echo $(cat <<E\nx\nE\n)\nrm -rf ~"); r.Decision < Forbidden {
		t.Errorf("control: heredoc closed in $( ) then rm = %s", r.Decision)
	}
}
