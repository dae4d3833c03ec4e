package classify

import (
	"strings"
	"testing"
)

// TestRcEdits: in-place edits of a file a shell runs later. The text they
// add is judged as if it ran; perl -i and ed/ex scripts the classifier
// cannot read are judged like unknown text written there.
func TestRcEdits(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		command string
		want    Decision
	}{
		{`exec {fd}>>~/.bashrc; echo 'rm -rf /' >&$fd`, Forbidden},
		{`exec {a}>x; exec {b}>>~/.bashrc; echo 'rm -rf /' >&$b`, Forbidden},
		{`exec {fd}>>~/.bashrc; exec {fd}>&-; echo 'rm -rf /' >&10`, Sandboxed},
		{`sed -i -e '$a\' -e 'rm -rf /' ~/.bashrc`, Forbidden},
		{`sed -i -e 1d -e '$a rm -rf /' ~/.profile`, Forbidden},
		{`sed -i '$s/$/\nrm -rf \//' ~/.bashrc`, Forbidden},
		{`sed -i 's|x|&\nrm -rf /|' ~/.bashrc`, Forbidden},
		{`perl -pi -e 'print "rm -rf /\n" if $.==1' ~/.bashrc`, Forbidden},
		{`perl -i.bak -pe 's/x/y/' ~/.bashrc`, Escalated},
		{`perl -p -i -e 's/x/y/' ~/.zshrc`, Escalated},
		{`ed -s ~/.bashrc <<< $'$a\nrm -rf /\n.\nw\nq'`, Forbidden},
		{`printf '1i\nrm -rf /\n.\nw\n' | ed ~/.bashrc`, Forbidden},
		{`ed ~/.bashrc < script.ed`, Escalated},
		{`ex -sc '$a|rm -rf /' -cx ~/.bashrc`, Escalated},

		// Everyday edits stay as they were.
		{`exec {fd}>log.txt; echo hi >&$fd`, Sandboxed},
		{`sed -i 's/vim/nvim/' ~/.bashrc`, Sandboxed},
		{`sed -i -e 's/a/b/' -e '$a export X=1' ~/.bashrc`, Sandboxed},
		{`sed -i 's/a/b\nc/' notes.txt`, Sandboxed},
		{`perl -pi -e 's/a/b/' x.txt`, Sandboxed},
		{`perl -i -ne 'print unless /x/' notes.txt`, Sandboxed},
		{`ed -s notes.txt <<< $'$a\nrm -rf /\n.\nw\nq'`, Sandboxed},
		{`ed -s ~/.bashrc <<< $'$a\nexport X=1\n.\nw\nq'`, Sandboxed},
	} {
		if got := c.Classify(tc.command); got.Decision != tc.want {
			t.Errorf("%q: %s (rule %q, command %q), want %s", tc.command, got.Decision, got.Rule, got.Command, tc.want)
		}
	}
}

// TestRcEditParsers checks the readers of sed s replacements, perl's
// options and ed scripts.
func TestRcEditParsers(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{`s/$/\nX/`, "X"},
		{`$s/$/\nrm -rf ~\/.ssh/`, "rm -rf ~/.ssh"},
		{`1,$s|a|b\nc|g`, "c"},
		{"s/a/b\\\nc/", "c"},
		{`s/a/b/`, ""},
		{`y/abc/xyz/`, ""},
	} {
		if got := strings.Join(sedSubstLines(tc.script), "|"); got != tc.want {
			t.Errorf("sedSubstLines(%q) = %q, want %q", tc.script, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args, code, files string
		inPlace           bool
	}{
		{"-pi -e CODE f", "CODE", "f", true},
		{"-i.bak -pe CODE f g", "CODE", "f g", true},
		{"-pie CODE f", "", "f", true}, // -i takes "e" as its suffix: CODE is the script file
		{"-p -e CODE f", "CODE", "f", false},
		{"-i script.pl f", "", "f", true},
		{"-MFoo -ei -- f", "i", "f", false},
	} {
		u := &unit{kind: kCall, name: "perl"}
		for _, w := range strings.Fields(tc.args) {
			u.args = append(u.args, field{val: w})
		}
		code, files, inPlace := perlCodeAndFiles(u)
		var fs []string
		for _, f := range files {
			fs = append(fs, f.val)
		}
		if code != tc.code || strings.Join(fs, " ") != tc.files || inPlace != tc.inPlace {
			t.Errorf("perl %s: %q %q %v, want %q %q %v", tc.args, code, fs, inPlace, tc.code, tc.files, tc.inPlace)
		}
	}
	for _, tc := range []struct{ script, want string }{
		{"$a\nX\nY\n.\nw\nq", "X\nY"},
		{"1i\nA\n.\n3c\nB\n.\nw", "A|B"},
		{",d\na\nC", "C"},
		{"w\nq", ""},
	} {
		if got := strings.Join(edTexts(tc.script), "|"); got != tc.want {
			t.Errorf("edTexts(%q) = %q, want %q", tc.script, got, tc.want)
		}
	}
}
