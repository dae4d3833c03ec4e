package classify

import (
	"strings"
	"testing"
)

// TestWrittenScriptMoves: a script written on the line is followed to where
// the line moves it or how it names it later: after a cd (by a relative
// name), through a link, copied, moved or installed, and into an rc file.
// Each premise runs the line in bash and dash with an echo in place of
// rm -rf ~; then the rm version must be forbidden.
//
// These were the classifier's documented limits ("cp/mv/ln of a written
// script, a script run after a cd by a relative name, a shell fed through
// a descriptor"); fixed: files are keyed by their path resolved against
// the directory the analysis follows and through the line's links
// (fileKey), cp/mv/install carry a written file's text to the destination
// (copyWritten), and a descriptor opened for reading reads the file's text
// (openReadFD, and <&N in redirects).
func TestWrittenScriptMoves(t *testing.T) {
	for _, tmpl := range []string{
		`mkdir d; echo 'CMD' > d/s.sh; cd d; sh s.sh`,
		`mkdir d; echo 'CMD' > d/s.sh; cd d; bash < s.sh`,
		`mkdir d; echo 'CMD' > d/s.sh; chmod +x d/s.sh; cd d; ./s.sh`,
		`echo 'CMD' > s.sh; ln -s s.sh t.sh; sh t.sh`,
		`echo 'CMD' > s.sh; cp s.sh t.sh; sh t.sh`,
		`echo 'CMD' > s.sh; mv s.sh t.sh; sh t.sh`,
		`echo 'CMD' > s.sh; mkdir d; cp s.sh d/; sh d/s.sh`,
		`echo 'CMD' > s.sh; install -m 755 s.sh x; ./x`,
		`echo 'CMD' > s.sh; exec 3<s.sh; bash <&3`,
		`echo 'CMD' > s.sh; exec 3<s.sh; exec 4<&3-; sh <&4`,
		`echo 'CMD' > s.sh; bash 3<s.sh <&3`,
		`echo 'CMD' > s.sh; exec <s.sh; bash`,
		`echo 'CMD' > s.sh; bash /dev/fd/3 3<s.sh`,
		`echo 'CMD' > s.sh; exec 3<s.sh; . /dev/fd/3`,
		"bash /dev/fd/3 3<<'E'\nCMD\nE",
	} {
		for _, sh := range []string{"bash", "dash"} {
			if sh == "dash" && strings.Contains(tmpl, "<&3-") {
				continue // dash has no descriptor moves
			}
			if out := shellOutput(t, sh, strings.ReplaceAll(tmpl, "CMD", "echo PWNED45"), nil); !strings.Contains(out, "PWNED45") {
				t.Fatalf("premise: %s did not run the written script of %q: %q", sh, tmpl, out)
			}
			judgedAtLeast(t, sh, strings.ReplaceAll(tmpl, "CMD", "rm -rf ~"), Forbidden)
		}
	}
	// Copied into an rc file, the text runs at the next shell; so it does
	// when a wrapper or busybox runs the copy (round 62's fixer found
	// them sandboxed: a wrapped command's writes were not followed).
	for _, l := range []string{`cp s.sh ~/.bashrc`, `nice cp s.sh ~/.bashrc`, `env cp s.sh ~/.bashrc`,
		`busybox cp s.sh ~/.bashrc`, `timeout 5 cp s.sh ~/.bashrc`, `nohup cp s.sh ~/.bashrc`} {
		judgedAtLeast(t, "bash", `echo 'rm -rf ~' > s.sh; `+l, Forbidden)
	}
	// controls: harmless scripts moved the same way stay sandboxed.
	for _, l := range []string{`echo 'ls' > s.sh; cp s.sh t.sh; sh t.sh`, `mkdir d; echo 'ls' > d/s.sh; cd d; sh s.sh`, `cp a b; sh b`} {
		if r := Default().ClassifyShell("bash", l); r.Decision >= Escalated {
			t.Errorf("control ClassifyShell(bash, %q) = %s (rule %q), want below escalated", l, r.Decision, r.Rule)
		}
	}
}
