package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteam46GitDiffOutput: git's diff options include --output=FILE,
// which writes what the command prints to FILE. matchGitRead
// (rules_git.go) refuses --output for git diff, log and show only, but
// diff-tree, diff-index, diff-files and whatchanged are in gitReadSubs and
// take the same option, and a commit header's --format is text of the
// line's choosing:
//
//	git diff-tree --root -s --format='tformat:rm -rf ~/.ssh' --output="$HOME/.bashrc" HEAD
//
// writes `rm -rf ~/.ssh` into ~/.bashrc (run by the next interactive
// shell) and is allow (git-read-commands); git is no writer writeTargets
// (writetargets.go) knows, so a write under /etc that way is allow too.
// The same text written with > is forbidden.
//
// Severity: high (a forbidden write judged allow).
// Found by red-team round 46. Fixed: --output refuses git-read
// for the whole diff and log family, is a write target (outputFiles), and a
// --format text written there is judged (filterOutputs).
func TestRedteam46GitDiffOutput(t *testing.T) {
	line := `git diff-tree --root -s --format='tformat:rm -rf ~/.ssh' --output="$HOME/.bashrc" HEAD`
	if rt46aHave(t, "git", "bash") {
		home, work := rt46aHome(t)
		gitEnv := []string{"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a",
			"GIT_COMMITTER_EMAIL=a@example.com", "GIT_CONFIG_NOSYSTEM=1"}
		if out := rt46aExec(t, "bash", home, work, "git init -q . && echo x > f && git add f && git commit -qm init", gitEnv...); out != "" {
			t.Logf("git setup: %s", out)
		}
		out := rt46aExec(t, "bash", home, work, line, gitEnv...)
		rc, _ := os.ReadFile(filepath.Join(home, ".bashrc"))
		if !strings.Contains(string(rc), "rm -rf ~/.ssh") {
			t.Fatalf("premise: git diff-tree --output did not write ~/.bashrc (now %q, output %q)", rc, out)
		}
		if !rt46aSSHGoneAfterRC(t, home, work) {
			t.Fatalf("premise: the next interactive bash did not run what git wrote (~/.bashrc %q)", rc)
		}
	}
	// controls
	if r := Default().ClassifyShell("bash", `echo 'rm -rf ~/.ssh' > ~/.bashrc`); r.Decision != Forbidden {
		t.Fatalf("control: echo > ~/.bashrc = %s (%s)", r.Decision, r.Rule)
	}
	if r := Default().ClassifyShell("bash", `git diff-tree --no-commit-id --name-only -r HEAD`); r.Decision != Allow {
		t.Errorf("control: git diff-tree --name-only = %s (%s), want allow", r.Decision, r.Rule)
	}
	for _, l := range []string{
		line,
		`git whatchanged -1 --format='tformat:rm -rf ~/.ssh' --output="$HOME/.bashrc"`,
	} {
		// At least escalated (the text written to an rc file is judged).
		rt46aAtLeast(t, l, Escalated)
	}
	// A diff written there is text the line does not know, judged as
	// git diff > ~/.bashrc is: not allowed (sandboxed).
	for _, l := range []string{
		`git diff-index -p HEAD --output="$HOME/.bashrc"`,
		`git diff-files -p --output="$HOME/.bashrc"`,
	} {
		rt46aAtLeast(t, l, Sandboxed)
	}
	rt46aAtLeast(t, `git diff-tree -p HEAD --output=/etc/profile.d/x.sh`, Forbidden)
}
