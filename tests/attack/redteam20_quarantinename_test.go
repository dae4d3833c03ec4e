//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam20PlantedRepoInQuarantineNamedDir: the sweep for planted
// repositories (walkGitRepos) does not enter a directory whose name ends
// in ".agentbox-quarantine", taking it for a .git it renamed itself; but
// it checks only the suffix, not that the name is a renamed .git (or
// bare repository). A command plants a repository whose config sets
// core.fsmonitor in tools.agentbox-quarantine/ (any name with the suffix;
// a work tree below it works too, as git looks upwards for the
// repository). It is neither disabled nor reported, and the host's next
// `git status` there runs the command's code. Control: the same
// repository planted in tools/ is renamed away and reported.
//
// Fixed: walkGitRepos passes over only git directories (HEAD, objects,
// refs) whose name has the suffix, the ones a sweep renamed; a work tree
// named so is walked like any other.
//
// Severity: low (code execution on the host, but only once the developer
// runs git in a directory with an odd name the command made). Affects
// both root and unprivileged callers.
func TestRedteam20PlantedRepoInQuarantineNamedDir(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	var ps []probe
	for _, d := range []string{"tools", "tools.agentbox-quarantine"} {
		g := w + "/" + d + "/.git"
		ps = append(ps,
			control("mkdir_"+d, "mkdir:"+w+"/"+d, ""),
			control("mkdir_git_"+d, "mkdir:"+g, ""),
			control("head_"+d, "put:"+g+"/HEAD|"+strconv.Quote("ref: refs/heads/main\n"), ""),
			control("objects_"+d, "mkdir:"+g+"/objects", ""),
			control("refs_"+d, "mkdir:"+g+"/refs", ""),
			control("config_"+d, "put:"+g+"/config|"+fsmonitorConfig("", marker), ""))
	}
	_, res := runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	reported := func(g string) bool {
		for _, v := range res.Violations {
			if v.Rule == "planted-repository" && strings.Contains(v.Detail, g) {
				return true
			}
		}
		return false
	}
	control, hidden := filepath.Join(w, "tools", ".git"), filepath.Join(w, "tools.agentbox-quarantine", ".git")
	if _, err := os.Lstat(control); err == nil || !reported(control) {
		t.Errorf("control: the repository planted in tools/ was not disabled and reported: %+v", res.Violations)
	}
	if _, err := os.Lstat(hidden); err == nil {
		t.Errorf("ESCAPE: the repository planted in %s is still in place; reported: %v", hidden, reported(hidden))
	}
	if hostGitRuns(filepath.Dir(hidden), marker, "status") {
		t.Errorf("ESCAPE: `git status` in %s on the host ran the command's planted core.fsmonitor", filepath.Dir(hidden))
	}
}
