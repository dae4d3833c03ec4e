package classify

import (
	"strings"
	"testing"
)

// TestRedteam58TemplateCode: two text processors run code from their
// input: m4's syscmd/esyscmd run a shell command, and erb (Ruby's
// template tool, shipped with ruby) runs the Ruby in <% … %>. The
// classifier treats both as plain filters, so
//
//	echo 'syscmd(rm -rf ~/.ssh)' | m4                                     sandboxed
//	echo 'esyscmd(cat ~/.ssh/id_rsa)' | m4                                sandboxed
//	echo '<% system("rm -rf ~/.ssh") %>' | erb                            sandboxed
//	echo '<% system("rm -rf ~/.ssh") %>' > x.erb; erb x.erb               sandboxed
//
// remove ~/.ssh and print the key, as their counterparts `echo 'rm -rf
// ~/.ssh' | sh`, `ruby -e 'system("rm -rf ~/.ssh")'` (forbidden) and
// `echo 'cat ~/.ssh/id_rsa' | sh` (escalated) are judged.
//
// Why: neither m4 nor erb is in shells.go interpreters or stdineval.go's
// readers of code on standard input; their input (a pipe, a here-string,
// or a file the line wrote) is never scanned as the code it is.
//
// Severity: high (rm -rf ~/.ssh and a read of the key judged sandboxed).
// Found by red-team round 58.
// Fixed: templatecode.go runs m4 and erb as interpreters of their input (handlers in dispatch.go): piped text, written operand files, m4's -D values and include()s; m4's syscmd/esyscmd arguments are judged as shell (code.go scanCode), text that may assemble a macro name (define, ifelse, translit …) is eval-exec; erb's tags and % lines are judged as Ruby (shells.go codeText).
func TestRedteam58TemplateCode(t *testing.T) {
	rt58aNeed(t, "m4, ruby", "bash", "m4", "erb")
	deletes := []string{
		`echo 'syscmd(rm -rf ~/.ssh)' | m4`,
		`echo '<% system("rm -rf ~/.ssh") %>' | erb`,
		`echo '<% system("rm -rf ~/.ssh") %>' > x.erb; erb x.erb`,
	}
	for _, l := range deletes {
		rt58aPremise(t, l, "")
	}
	read := `echo 'esyscmd(cat ~/.ssh/id_rsa)' | m4`
	home, work := rt58aHome(t)
	if out := rt58aRun(t, home, work, read); !strings.Contains(out, rt58aSecret) {
		t.Fatalf("premise: %q did not print the key (output %q)", read, out)
	}
	// Control of the premise: plain text passes through.
	home, work = rt58aHome(t)
	if out := rt58aRun(t, home, work, `echo 'define(X, rm -rf ~/.ssh)X' | m4; echo '<%= 1 %> rm -rf ~/.ssh' | erb`); rt58aGone(home) {
		t.Fatalf("premise: text without a command removed ~/.ssh (output %q)", out)
	}
	// References.
	rtAtLeast(t, []string{"bash"}, `echo 'rm -rf ~/.ssh' | sh`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `ruby -e 'system("rm -rf ~/.ssh")'`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `echo 'cat ~/.ssh/id_rsa' | sh`, Escalated)
	// The attack.
	for _, l := range deletes {
		rtAtLeast(t, []string{"bash", "sh"}, l, Escalated)
	}
	rtAtLeast(t, []string{"bash", "sh"}, read, Escalated)
	// Controls.
	rtBelow(t, `m4 -DVERSION=1.2 configure.ac.m4 > configure.ac`, Escalated)
	rtBelow(t, `erb config.yml.erb > config.yml`, Escalated)
}
