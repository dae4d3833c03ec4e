package classify

import "testing"

// TestRedteam47StdinFD: text reaches ~/.bashrc through a file name for a
// descriptor the classifier does not follow:
//
//	echo 'rm -rf ~/.ssh' | cp /dev/stdin ~/.bashrc
//	echo 'rm -rf ~/.ssh' | cp /proc/self/fd/0 ~/.bashrc
//	echo 'rm -rf ~/.ssh' | install -D /dev/stdin ~/.bashrc
//	exec 3>>~/.bashrc; echo 'rm -rf ~/.ssh' >/dev/fd/3
//	exec 3>>~/.bashrc; echo 'rm -rf ~/.ssh' | tee /dev/fd/3
//	exec 3>>~/.bashrc; echo 'rm -rf ~/.ssh' | dd of=/dev/fd/3
//	exec 2>>~/.bashrc; echo 'rm -rf ~/.ssh' | tee /dev/stderr
//
// Each puts `rm -rf ~/.ssh` into ~/.bashrc (run by the next interactive
// shell) and is sandboxed. The modelled forms are forbidden: `| tee -a
// ~/.bashrc`, `exec 3>>~/.bashrc; echo … >&3`, and `| tee /dev/fd/3
// 3>>~/.bashrc` (the descriptor opened on the same command). copyWritten
// (writeforms.go) follows only a source file written on the line
// (fileStream), never the piped stream behind /dev/stdin or
// /proc/self/fd/0; writeFDs (writeforms.go) follows a descriptor `exec`
// opened (openFDs) only for a `>&N` duplication (and plain output after
// `exec >f`), so a redirection target or a tee/dd operand that names it
// as a file (/dev/fd/N, /dev/stderr, /proc/self/fd/N) is a write to an
// unknown device file.
//
// Severity: high (a forbidden write into an rc file judged sandboxed).
// Found by red-team round 47 (high). Fixed: a copy of /dev/stdin is the
// piped text (copySource), and a write to /dev/fd/N, /proc/self/fd/N,
// /dev/stdout or /dev/stderr lands where the command's or an earlier exec's
// redirection points N (fdFile).
func TestRedteam47StdinFD(t *testing.T) {
	const rc = "# rc\n"
	for _, control := range []string{
		`echo 'rm -rf ~/.ssh' | tee -a ~/.bashrc`,
		`exec 3>>~/.bashrc; echo 'rm -rf ~/.ssh' >&3`,
		`echo 'rm -rf ~/.ssh' | tee /dev/fd/3 3>>~/.bashrc`,
	} {
		rtAtLeast(t, rt47bShells(false), control, Forbidden)
	}
	for _, line := range []string{
		`echo 'rm -rf ~/.ssh' | cp /dev/stdin ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | cp /proc/self/fd/0 ~/.bashrc`,
		`echo 'rm -rf ~/.ssh' | install -D /dev/stdin ~/.bashrc`,
		`exec 3>>~/.bashrc; echo 'rm -rf ~/.ssh' >/dev/fd/3`,
		`exec 3>>~/.bashrc; echo 'rm -rf ~/.ssh' | tee /dev/fd/3`,
		`exec 3>>~/.bashrc; echo 'rm -rf ~/.ssh' | dd of=/dev/fd/3`,
		`exec 2>>~/.bashrc; echo 'rm -rf ~/.ssh' | tee /dev/stderr`,
	} {
		for _, sh := range rt47bShells(false) {
			if rtHave(t, sh) && !rt47bRCDeletesSSH(t, sh, rc, line) {
				t.Fatalf("premise: after %s -c %q an interactive bash did not delete ~/.ssh", sh, line)
			}
		}
		rtAtLeast(t, rt47bShells(false), line, Forbidden)
	}
	// Legitimate: saving piped output to a project file keeps working.
	rtBelow(t, `go env | cp /dev/stdin env.txt`, Escalated)
	rtBelow(t, `exec 3>>build.log; make 2>&1 | tee /dev/fd/3`, Escalated)
}
