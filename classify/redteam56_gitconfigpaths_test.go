package classify

import "testing"

// TestRedteam56GitConfigPaths: a repository's configuration written on
// the line is judged as the settings it makes (gitconfigtext.go, so
// `printf '[core]\n\tfsmonitor = rm -rf ~/.ssh\n' >> .git/config; git
// status` is forbidden), but git reads repository configuration from
// more files than one named .git/config:
//
//	git init -q; printf '[include]\n\tpath = ../x\n' >> .git/config; printf "$F" > x; git status       sandboxed
//	git init -q --bare r.git; printf "$F" >> r.git/config; git --git-dir=r.git --work-tree=. status   sandboxed
//	git init -q --bare r.git; printf "$A" >> r.git/config; git --git-dir=r.git st                      sandboxed
//	git init -q --bare r.git; printf "$A" >> r.git/config; cd r.git && git st                          sandboxed
//
// with F = [core] fsmonitor = rm -rf ~/.ssh (git status runs it) and
// A = [alias] st = !rm -rf ~/.ssh: each deletes ~/.ssh.
//
// Why: gitconfigtext.go gitConfigFile knows a repository's configuration
// only as a path ending in .git/config; a bare repository's (DIR.git/
// config, or any git dir named by --git-dir, GIT_DIR or found by cd) is
// not one, so what the line writes there is not judged. An include
// (include.path, includeIf) in a written configuration sets u.script to
// unknown text, which no rule turns into a verdict for the printf that
// writes it (eval-exec looks at u.script only for a shell or a piped
// program), and the included file the line wrote is not read.
//
// Severity: high (rm -rf ~/.ssh judged sandboxed).
// Found by red-team round 56. Fixed: gitconfigtext.go (gitRunConfig: a git command's written
// config, bare repositories' too, and the written files it includes).
func TestRedteam56GitConfigPaths(t *testing.T) {
	const (
		f = `'[core]\n\tfsmonitor = rm -rf ~/.ssh\n'`
		a = `'[alias]\n\tst = !rm -rf ~/.ssh\n'`
	)
	lines := []string{
		`git init -q; printf '[include]\n\tpath = ../x\n' >> .git/config; printf ` + f + ` > x; git status`,
		`git init -q; printf ` + a + ` > x; printf '[include]\n\tpath = ../x\n' >> .git/config; git st`,
		`git init -q --bare r.git; printf ` + f + ` >> r.git/config; git --git-dir=r.git --work-tree=. status`,
		`git init -q --bare r.git; printf ` + a + ` >> r.git/config; git --git-dir=r.git st`,
		`git init -q --bare r.git; printf ` + a + ` >> r.git/config; cd r.git && git st`,
	}
	if rtHave(t, "bash", "git") {
		for _, l := range lines {
			rt56aPremise(t, l)
		}
	}
	// References: the same settings in .git/config.
	rtAtLeast(t, []string{"bash"}, `git init -q; printf `+f+` >> .git/config; git status`, Forbidden)
	rtAtLeast(t, []string{"bash"}, `git init -q; printf `+a+` >> .git/config; git st`, Forbidden)
	// The attack.
	for _, l := range lines {
		rtAtLeast(t, []string{"bash", "sh"}, l, Forbidden)
	}
	// Controls: ordinary settings in the same places.
	rtBelow(t, `git init -q --bare r.git; printf '[core]\n\tautocrlf = false\n' >> r.git/config; git --git-dir=r.git log`, Escalated)
	rtBelow(t, `git init -q; printf '[user]\n\tname = x\n' > x; git status`, Escalated)
}
