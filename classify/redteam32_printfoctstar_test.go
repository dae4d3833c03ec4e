package classify

import (
	"os/exec"
	"testing"
)

// TestRedteam32PrintfOctalStar: printfRun.star reads the count of a *
// width or precision with strconv.Atoi (base 10), so it takes "010" as
// 10 and "013" as 13 and claims the result exact. Bash's printf reads
// that ARG with strtoimax(…, 0) (getintmax in printf.def): a leading 0
// is octal, so 010 is 8 and 013 is 11. printf -v f '%.*s' 013
// /etc/shadowXY stores /etc/shadow under bash, while the model folds
// /etc/shadowXY; cat "$f" is then "allow" (common-safe-commands) though
// bash reads /etc/shadow (cat /etc/shadow is escalated, credential-access).
// The same holds for $(printf '%.*s' 013 …) folds, and printf -v d '%.*s'
// 010 /home/u/ab; rm -rf "$d" deletes the home directory /home/u/ under
// bash while the classifier says "sandboxed" (rm -rf /home/u/ is
// forbidden, recursive-delete-root). Every value is a literal on the line.
// Severity: high (an allowed line reads a credential file; a forbidden
// recursive delete of home is only sandboxed). Fix: star must parse as
// bash's getintmax does (base 0: 0… octal, 0x… hex, leading blanks, +),
// or mark any ARG that is not [1-9][0-9]*|0|-[1-9][0-9]* as not exact.
// Fixed: printfNumber (printfformat.go) reads * counts and %d ARGs as
// getintmax does (octal, hex, blanks, sign, 'c, junk keeps the value read).
func TestRedteam32PrintfOctalStar(t *testing.T) {
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	// Premise: bash reads the * count as octal.
	if bash, err := exec.LookPath("bash"); err == nil {
		out, _ := exec.Command(bash, "-c", `printf -v f '%.*s' 013 /etc/shadowXY; printf '%s|' "$f" "$(printf '%.*s' 010 /home/u/ab)"`).Output()
		if string(out) != "/etc/shadow|/home/u/|" {
			t.Errorf("premise: bash gave %q, want /etc/shadow|/home/u/|", out)
		}
	}
	// Model: the count must not be claimed exact as decimal.
	for _, m := range []struct{ n, arg, bash string }{
		{"013", "/etc/shadowXY", "/etc/shadow"},
		{"08", "abcdefghij", ""}, // bash: invalid octal number, count 0
	} {
		if got, exact := printfFormat("%.*s", []string{m.n, m.arg}); exact && got != m.bash {
			t.Errorf("printfFormat(%%.*s, %s, %s) = %q exact, bash gives %q", m.n, m.arg, got, m.bash)
		}
	}
	controls := []string{
		`printf -v f '%.*s' 11 /etc/hostsXY; cat "$f"`,
		`cat $(printf '%.*s' 10 /etc/hostsXY)`,
	}
	for _, l := range controls {
		if got := c.Classify(l); got.Decision != Allow {
			t.Errorf("benign control %q: %s (%s), want allow", l, got.Decision, got.Rule)
		}
	}
	attacks := []string{
		`printf -v f '%.*s' 013 /etc/shadowXY; cat "$f"`,
		`cat $(printf '%.*s' 013 /etc/shadowXY)`,
		`printf -v f '%*.*s' 0 013 /etc/shadowXY; cat "$f"`,
		`printf -v d '%.*s' 010 /home/u/ab; rm -rf "$d"`,
		`rm -rf "$(printf '%.*s' 010 /home/u/ab)"`,
	}
	for _, l := range attacks {
		if got := c.Classify(l); got.Decision == Allow || got.Decision == Sandboxed {
			t.Errorf("%q: %s (rule %q), want forbidden or escalated", l, got.Decision, got.Rule)
		}
	}
}
