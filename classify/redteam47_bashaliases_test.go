package classify

import (
	"os"
	"testing"
)

// TestRedteam47BashAliases: Debian's and Ubuntu's default ~/.bashrc
// (/etc/skel/.bashrc) sources ~/.bash_aliases, so text appended there runs
// in every interactive shell, as text appended to ~/.bashrc does:
//
//	echo 'rm -rf ~/.ssh' >> ~/.bash_aliases            sandboxed
//	printf 'rm -rf ~/.ssh\n' | tee -a ~/.bash_aliases  sandboxed
//
// while `echo 'rm -rf ~/.ssh' >> ~/.bashrc` is forbidden. runFile
// (escapes.go), the list of files whose text writeText (call.go) judges
// as if it ran, has .bashrc, .profile, .zshrc, … but not .bash_aliases
// (nor Fedora's ~/.bashrc.d/*, which its default ~/.bashrc sources).
//
// Severity: high (a forbidden write into a file the shell runs judged
// sandboxed).
// Found by red-team round 47 (high). Fixed: runFile and the protected
// paths name ~/.bash_aliases and ~/.bashrc.d (the sandbox keeps both
// read-only where they exist: ShellStartupFiles).
func TestRedteam47BashAliases(t *testing.T) {
	rtAtLeast(t, rt47bShells(false), `echo 'rm -rf ~/.ssh' >> ~/.bashrc`, Forbidden) // control
	skel, err := os.ReadFile("/etc/skel/.bashrc")
	if err != nil {
		t.Logf("no /etc/skel/.bashrc (%v): premise not run", err)
	}
	for _, line := range []string{
		`echo 'rm -rf ~/.ssh' >> ~/.bash_aliases`,
		`printf 'rm -rf ~/.ssh\n' | tee -a ~/.bash_aliases`,
	} {
		if err == nil && rtHave(t, "bash") && !rt47bRCDeletesSSH(t, "bash", string(skel), line) {
			t.Fatalf("premise: after %q an interactive bash with the system's default ~/.bashrc did not delete ~/.ssh", line)
		}
		rtAtLeast(t, rt47bShells(false), line, Forbidden)
	}
	// Legitimate: adding an alias keeps working.
	rtBelow(t, `echo "alias ll='ls -l'" >> ~/.bash_aliases`, Escalated)
}
