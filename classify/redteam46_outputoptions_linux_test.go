package classify

import "testing"

// TestRedteam46OutputOptions: everyday text tools that write a file named
// by an option or a second operand, not a redirection:
//
//	printf 'rm -rf ~/.ssh\n' | sort -o ~/.bashrc
//	printf 'rm -rf ~/.ssh\n' | shuf -o ~/.bashrc
//	printf 'rm -rf ~/.ssh\n' | uniq - ~/.bashrc
//	printf 'rm -rf ~/.ssh\n' | iconv -f UTF-8 -t UTF-8 -o ~/.bashrc
//	printf 726d202d7266207e2f2e7373680a | xxd -r -p - ~/.bashrc
//
// each put `rm -rf ~/.ssh` into ~/.bashrc (run by the next interactive
// shell), and are sandboxed; with `| tee ~/.bashrc` or `> ~/.bashrc` the
// same line is forbidden. sort, shuf, uniq, iconv and xxd are none of the
// writers writeTargets (writetargets.go: operandWriters, destWriters,
// otherWriters) and rememberOther (writeforms.go) know, so neither the
// rc-file text nor a protected path is seen: `sort -o /etc/passwd
// users.txt` and `uniq users.txt /etc/passwd` are sandboxed where `sort
// users.txt > /etc/passwd` is forbidden (output-redirect-system).
// (rules_allow.go already refuses to allow sort -o, uniq IN OUT and xxd
// with two operands: the write is known to be one, but not where.)
//
// Severity: high (a forbidden write judged sandboxed).
// Found by red-team round 46. Fixed: sort/shuf/iconv -o, uniq
// and xxd's output operand are write targets (outputFiles) and receive the
// piped text, xxd -r -p decoded (filterOutputs).
func TestRedteam46OutputOptions(t *testing.T) {
	for _, tc := range []struct {
		line string
		prog string
	}{
		{`printf 'rm -rf ~/.ssh\n' | sort -o ~/.bashrc`, "sort"},
		{`printf 'rm -rf ~/.ssh\n' | shuf -o ~/.bashrc`, "shuf"},
		{`printf 'rm -rf ~/.ssh\n' | uniq - ~/.bashrc`, "uniq"},
		{`printf 'rm -rf ~/.ssh\n' | iconv -f UTF-8 -t UTF-8 -o ~/.bashrc`, "iconv"},
		{`printf 726d202d7266207e2f2e7373680a | xxd -r -p - ~/.bashrc`, "xxd"},
	} {
		rt46aRCPremise(t, tc.prog, tc.line)
		// At least escalated (text written to an rc file); forbidden
		// where the text is followed, as with tee.
		rt46aAtLeast(t, tc.line, Escalated)
	}
	for _, l := range []string{
		`sort -o /etc/passwd users.txt`,
		`uniq users.txt /etc/passwd`,
		`shuf -o /etc/profile.d/x.sh lines.txt`,
		`iconv -f latin1 -t utf-8 -o /etc/passwd users.txt`,
		`xxd -r dump.hex /etc/passwd`,
	} {
		rt46aAtLeast(t, l, Forbidden)
	}
	// controls: the redirection forms are forbidden; sorting into a
	// project file stays sandboxed, a plain sort allowed.
	for _, l := range []string{`printf 'rm -rf ~/.ssh\n' | tee ~/.bashrc`, `sort users.txt > /etc/passwd`} {
		if r := Default().ClassifyShell("bash", l); r.Decision != Forbidden {
			t.Fatalf("control: %q = %s (%s), want forbidden", l, r.Decision, r.Rule)
		}
	}
	if r := Default().ClassifyShell("bash", `sort -o sorted.txt words.txt`); r.Decision != Sandboxed {
		t.Errorf("control: sort -o sorted.txt = %s (%s), want sandboxed", r.Decision, r.Rule)
	}
	if r := Default().ClassifyShell("bash", `sort -u words.txt`); r.Decision != Allow {
		t.Errorf("control: sort -u = %s (%s), want allow", r.Decision, r.Rule)
	}
}
