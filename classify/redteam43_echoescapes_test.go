package classify

import "testing"

// TestRedteam43EchoDashEEscapes: bash's echo -e is folded with $'…'
// escapes (ansiC in echoStream), which are not echo's. echo -e prints \'
// and \" as typed (a backslash then the quote), and reads \0NNN as octal
// with up to three digits after the 0; $'…' turns \' and \" into the bare
// quote and \0073 into BEL then 3. So eval "$(echo -e "echo \\' ; rm -rf
// ~ ; echo \\'")" is, to the classifier, eval of echo ' ; rm -rf ~ ; echo
// ' (one echo of a quoted string), while bash evaluates echo \' ; rm -rf
// ~ ; echo \' and runs rm; eval "$(echo -e 'echo a\0073 rm -rf ~')" is
// echo a; rm -rf ~ to bash. Verdict: sandboxed, under bash and dash (dash
// prints -e too and evaluates the same lines). Found by red-team round 43
// (high: an ordinary bash idiom hid the payload from every reading).
// Fixed: echo's escapes have a model of their own, bash's and dash's
// (echoEscapes), not those of $'…'.
func TestRedteam43EchoDashEEscapes(t *testing.T) {
	cases := []string{
		`eval "$(echo -e "echo \\' ; CMD ; echo \\'")"`,
		`eval "$(echo -e 'echo \" ; CMD ; echo \"')"`,
		`eval "$(echo -e 'echo a\0073 CMD')"`,
	}
	rt43bCheck(t, "bash", cases, Forbidden)
	rt43bCheck(t, "dash", cases, Forbidden)
	// Control: escapes echo -e and $'…' share are folded right.
	if r := Default().ClassifyShell("bash", `eval "$(echo -e 'echo a\x3b rm -rf ~')"`); r.Decision < Forbidden {
		t.Errorf("control: echo -e \\x3b = %s", r.Decision)
	}
}
