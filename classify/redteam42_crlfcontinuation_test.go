package classify

import "testing"

// TestRedteam42CRLFContinuation: a backslash before a CRLF line end
// ("echo a\<CR><LF>rm -rf ~"). Bash knows no CRLF: the backslash quotes
// the CR and the LF ends the command, so the next line runs (checked with
// bash -c and a touch in place of CMD). Found by red-team round 42 (high):
// mvdan's lexer takes backslash-CR-LF for a line continuation, so the next
// line's words joined the command before it (allow after echo, ls, quoted
// words, $x, $( ), backquotes; sandboxed after true, a pipe, in an if),
// and an unquoted here-document line ending so swallowed the delimiter
// line, the commands after it read as the document. Agents write CRLF
// text often (Windows editors, copied text). Fixed: a CR is read as a
// character of a word, as the shells read it (wordCRs).
func TestRedteam42CRLFContinuation(t *testing.T) {
	rt42bJudge(t, "echo a\r\necho b", []string{
		"echo a\\\r\nCMD",
		"ls \\\r\nCMD",
		"true\\\r\nCMD",
		"echo 'x'\\\r\nCMD",
		"echo $x\\\r\nCMD",
		"echo $(echo a\\\r\nCMD)",
		"for i in 1; do echo a\\\r\nCMD; done",
		"if true; then echo\\\r\nCMD; fi",
		"echo a | cat\\\r\nCMD",
		"echo a\\\r\\\r\nCMD",
		"echo `echo a\\\r\nCMD`",
		// An unquoted here-document line ending in backslash-CRLF: bash
		// ends the body at the E line below it, mvdan joins the two lines
		// and takes the rest of the text as the body.
		"cat <<E\nhi\\\r\nE\nCMD\nE",
		"x=$(cat <<E\nhi\\\r\nE\n)\nCMD\nE\n)",
	})
}
