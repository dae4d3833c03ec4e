package classify

import (
	"strings"
	"testing"
)

// TestRedteam47CopyPaths: a file the line writes with known text is
// followed when cp, mv or install copies it (`printf 'rm -rf ~/.ssh\n' >
// x; cp x ~/.bashrc` is forbidden, and so is `echo 'rm -rf ~' > x; sh x`),
// but not along these equally ordinary routes:
//
//	ln -sf "$PWD/x" ~/.bashrc          the rc file becomes a link to x
//	ln -f x ~/.bashrc                  … a hard link to x
//	dd if=x of=$HOME/.bashrc           dd copies x
//	cp -S .b -b x ~/.bashrc            a backup suffix given as its own word
//	cp --suffix .b -b x ~/.bashrc
//	mv -S .b -b x ~/.bashrc
//	cp --sparse always x ~/.bashrc     other options with a separate value
//	cp --no-preserve mode x ~/.bashrc
//	echo 'rm -rf ~' > x; dd if=x of=y; sh y        the same, run at once
//	echo 'rm -rf ~' > x; cp -S .b -b x y; sh y
//
// each sandboxed, though ~/.bashrc then holds `rm -rf ~/.ssh` (run by the
// next interactive shell) or y is `rm -rf ~`. copyWritten (writeforms.go)
// handles cp, mv and install only (not ln, not dd if=), and takes the
// operands from u.operands(), which reads `-S .b`, `--suffix .b`,
// `--sparse always`, `--no-preserve mode` as two operands: with three
// "operands" the last is taken for a directory, so the text lands in
// ~/.bashrc/x, not ~/.bashrc (operandsSkipping is used for install's
// valued options only). ln's links are kept for writes made through them
// (ln -s ~/.bashrc x; echo … >> x), not for the file an rc file is made to
// point at.
//
// Severity: high (a forbidden write into an rc file, or `rm -rf ~` run,
// judged sandboxed).
// Found by red-team round 47 (high). Fixed: cp and mv skip their options'
// values (-S, --suffix, --sparse, --no-preserve, abbreviations too), ln
// gives the new name the written file's text (linkWritten), and dd of=
// writes what if= names.
func TestRedteam47CopyPaths(t *testing.T) {
	const rc = "# rc\n"
	const w = `printf 'rm -rf ~/.ssh\n' > x; `
	rtAtLeast(t, rt47bShells(false), w+`cp x ~/.bashrc`, Forbidden)          // control
	rtAtLeast(t, rt47bShells(false), `echo 'rm -rf ~' > x; sh x`, Forbidden) // control
	for _, line := range []string{
		w + `ln -sf "$PWD/x" ~/.bashrc`,
		w + `ln -f x ~/.bashrc`,
		w + `dd if=x of=$HOME/.bashrc`,
		w + `cp -S .b -b x ~/.bashrc`,
		w + `cp --suffix .b -b x ~/.bashrc`,
		w + `mv -S .b -b x ~/.bashrc`,
		w + `cp --sparse always x ~/.bashrc`,
		w + `cp --no-preserve mode x ~/.bashrc`,
	} {
		for _, sh := range rt47bShells(false) {
			if rtHave(t, sh) && !rt47bRCDeletesSSH(t, sh, rc, line) {
				t.Fatalf("premise: after %s -c %q an interactive bash did not delete ~/.ssh", sh, line)
			}
		}
		rtAtLeast(t, rt47bShells(false), line, Forbidden)
	}
	for _, tail := range []string{`dd if=x of=y; sh y`, `cp -S .b -b x y; sh y`} {
		// Premise with a marker, verdict on rm -rf ~.
		home, work := rt47bHome(t, rc)
		if out := rt47bRun(t, "dash", home, work, `echo 'echo RT47B-MARK-$((6*7))' > x; `+tail); !strings.Contains(out, "RT47B-MARK-42") {
			t.Fatalf("premise: %q did not run x's text: %q", tail, out)
		}
		rtAtLeast(t, rt47bShells(false), `echo 'rm -rf ~' > x; `+tail, Forbidden)
	}
	// Legitimate: linking and copying dotfiles from a repository. (Linking
	// an rc file of unknown text, ln -sf "$PWD/dotfiles/bashrc" ~/.bashrc,
	// asks since round 54: the next shell runs it, as it runs cat x >
	// ~/.bashrc.)
	rtBelow(t, `ln -sf "$PWD/dotfiles/gitignore" ~/.gitignore_global`, Escalated)
	rtBelow(t, `echo 'export EDITOR=vim' > x; cp -S .b -b x ~/.bashrc`, Escalated)
}
