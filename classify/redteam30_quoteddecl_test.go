package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam30QuotedDeclFlags: isNamerefDecl, isLocalDecl (and the
// attribute readers) look only at unquoted option words, and wrappedDecl
// (declare behind builtin/command) ignores -i, -l, -u and the other
// attributes. Bash removes quotes before it reads options, so declare
// "-n", '-n', -""n make a nameref, and builtin declare -i makes an
// integer variable whose assignments are evaluated as arithmetic (a
// subscript's $(…) runs). The classifier takes r as a plain variable (c
// stays ls, $c is allowed) or x's value as plain text, and each line is
// "allow" while bash runs the payload. An option word only known at run
// time (o=-n; declare $o r=c) may be any option. Severity: high (an
// allowed line runs rm -rf /; the sandbox still applies). Every value is a
// literal on the line.
// Fixed: declopts.go readDeclOpts is the one reader of declaration
// options for the clause (words after quote removal, declWords) and for
// builtin/command declare (wrappedDecl, which now gives bare names and
// NAME=VALUE words their attributes: declName, declWord); an option only
// known at run time may be any: the names get attrInt|attrMixed and a
// link to a run-time target (dynDecl), and setVar judges a value given to
// such a name as arithmetic.
func TestRedteam30QuotedDeclFlags(t *testing.T) {
	c, err := New(WithDefaultProtectedPaths(), WithHomeDir("/home/u"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`declare -i n=3; echo $((n+1))`,
		`builtin declare c=pwd; $c`,
		`declare "-r" X=1; echo $X`,
		`declare "-i" n=3; echo $((n+1))`,
		`builtin declare -i n; n=2+3; echo $n`,
		`command declare -l x=ABC; echo $x`,
		`c=ls; declare "-n" r=c; r=pwd; $c`,
		`declare "-a" a=(1 2); echo "${a[@]}"`,
	} {
		if got := c.Classify(line); got.Decision != Allow {
			t.Errorf("benign control %q: %s (%s), want allow", line, got.Decision, got.Rule)
		}
	}
	// CMD is a harmless touch in bash (in a lower-case directory, so -l
	// keeps it), rm -rf / for the classifier (upper-case where -l lowers).
	dir, err := os.MkdirTemp("", "rt30e3")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bash, bashErr := exec.LookPath("bash")
	for i, tmpl := range []string{
		`c=ls; declare "-n" r=c; r='CMD'; $c`,
		`c=ls; declare '-n' r=c; r='CMD'; $c`,
		`c=ls; declare -""n r=c; r='CMD'; $c`,
		`c=ls; typeset "-rn" r=c; r='CMD'; $c`,
		`c=ls; declare "-n" "r=c"; r='CMD'; $c`,
		`f() { local "-n" r=c; r='CMD'; }; c=ls; f; $c`,
		`f() { declare "-gn" r=c; }; c=ls; f; r='CMD'; $c`,
		`c=ls; o=-n; declare $o r=c; r='CMD'; $c`,
		`o=-n; declare $o r=c; c=ls; r='CMD'; $c`,
		`builtin declare -i x; x='a[$(CMD)]'; echo $x`,
		`command declare -i x; x='a[$(CMD)]'; echo $x`,
		`builtin typeset -ri x='a[$(CMD)]'; echo $x`,
		`declare "-i" x; x='a[$(CMD)]'; echo $x`,
		`declare -""i x; x='a[$(CMD)]'; echo $x`,
		`o=-i; declare $o x; x='a[$(CMD)]'; echo $x`,
		`builtin declare "-l" c; c='UCMD'; $c`,
		`declare "-l" c; c='UCMD'; $c`,
	} {
		if bashErr == nil {
			mark := filepath.Join(dir, "ran"+string(rune('a'+i)))
			cmd := strings.NewReplacer("UCMD", "TOUCH "+mark, "CMD", "touch "+mark).Replace(tmpl)
			_ = exec.Command(bash, "-c", cmd).Run()
			if _, err := os.Stat(mark); err != nil {
				t.Errorf("bash did not run the payload of %q (test premise)", cmd)
			}
		}
		line := strings.NewReplacer("UCMD", "RM -RF /", "CMD", "rm -rf /").Replace(tmpl)
		if got := c.Classify(line); got.Decision == Allow || got.Decision == Sandboxed {
			t.Errorf("%q: %s (rule %q), want forbidden or escalated", line, got.Decision, got.Rule)
		}
	}
}
