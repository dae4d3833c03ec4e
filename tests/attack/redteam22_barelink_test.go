//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam22PlantedBareRepoWithLinks: the walk for planted
// repositories (walkGitRepos, gitrepos.go) recognises a bare repository
// by isGitDir: a HEAD that is a regular file and objects and refs that
// are directories, by their own type (lstat). Git's own test
// (is_git_directory, validate_headref in setup.c) is looser: a HEAD that
// is a symbolic link to refs/..., and objects and refs reached through
// symbolic links (access(X_OK) follows them), make a git directory too.
// So the command makes tools/ with HEAD -> refs/heads/main (or with
// objects -> objs, or refs -> rfs), and a config setting core.bare =
// false, core.worktree = .. and core.fsmonitor. The sweep after the run
// never takes tools/ for a repository: it is neither judged, nor renamed,
// nor reported. Git on the host, in tools/, discovers tools/ as a git
// directory, takes its core.worktree, and runs the command's fsmonitor at
// the next `git status`. Control: the same repository with a plain HEAD
// file and objects and refs directories is renamed away and reported.
//
// Severity: medium (code execution on the host at the developer's next
// git command in a directory the command made; default policy, like
// TestRedteam21PlantedRepoInsideBareLookalike). Affects both root and
// unprivileged callers. The pre-run scan misses a user's own bare
// repository so made alike (its hooks and config left writable).
//
// A fix would need isGitDir (and probeGit) to follow git's rule: a HEAD
// that is a regular file or a symbolic link (to refs/...), objects and
// refs that are directories or symbolic links (to anything: judge it as
// one), and also a HEAD with a commondir beside it (objects and refs then
// looked for in the directory it names).
func TestRedteam22PlantedBareRepoWithLinks(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	markers := newDir(t, 0o777)
	variants := map[string]string{
		"plain":        "echo 'ref: refs/heads/main' > HEAD; mkdir objects refs",
		"head_link":    "ln -s refs/heads/main HEAD; mkdir objects refs",
		"objects_link": "echo 'ref: refs/heads/main' > HEAD; mkdir objs refs; ln -s objs objects",
		"refs_link":    "echo 'ref: refs/heads/main' > HEAD; mkdir objects rfs; ln -s rfs refs",
	}
	var script strings.Builder
	script.WriteString("set -e\n")
	for name, make := range variants {
		marker := filepath.Join(markers, name)
		script.WriteString("mkdir " + w + "/" + name + " && cd " + w + "/" + name + " && " + make +
			" && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = ..\\n\\tfsmonitor = \"touch " + marker + " #\"\\n' > config\n")
	}
	script.WriteString("echo planted\n")
	res := runShell(t, script.String(), agentbox.WithWritableRoots(w))
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "planted") {
		t.Fatalf("control: the command could not make its directories (exit %d): %s", res.ExitCode, res.Stderr)
	}
	t.Logf("violations: %+v", res.Violations)
	reported := func(d string) bool {
		for _, v := range res.Violations {
			if v.Rule == "planted-repository" && strings.Contains(v.Detail, d+" ") {
				return true
			}
		}
		return false
	}
	for name := range variants {
		d := filepath.Join(w, name)
		_, err := os.Lstat(d)
		present := err == nil
		ran := present && hostGitRuns(d, filepath.Join(markers, name), "status")
		switch {
		case name == "plain" && (present || !reported(d)):
			t.Errorf("control: the plain bare repository %s was not disabled (still there: %v, reported: %v)", d, present, reported(d))
		case name != "plain" && present:
			t.Errorf("ESCAPE (%s): the planted repository %s is still in place (reported: %v); host `git status` there ran its core.fsmonitor: %v", name, d, reported(d), ran)
		}
	}
}
