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

// TestRedteam21PlantedRepoInsideBareLookalike: the walk for planted
// repositories (walkGitRepos) takes a directory holding a HEAD file, an
// objects and a refs directory for a git directory (a bare repository;
// one named *.agentbox-quarantine for one a sweep renamed) and does not
// look inside it. But such a directory may hold anything besides: the
// command makes tools/ with an empty HEAD, objects/ and refs/ and, beside
// them, a repository whose config sets core.fsmonitor in tools/.git. tools
// is judged as a bare repository (no config, no hooks: harmless) and kept;
// tools/.git is never looked at, neither disabled nor reported. Git on
// the host, in tools/, looks for a .git first and runs the command's
// fsmonitor at the next `git status`. The same with the name
// tools.agentbox-quarantine (passed over without judgement), which
// bypasses the fix of TestRedteam20PlantedRepoInQuarantineNamedDir. The
// pre-run scan misses the user's repositories in such a directory alike.
// Control: the same repository planted in plain/ (no HEAD, objects, refs
// beside it) is renamed away and reported.
//
// Severity: medium (code execution on the host at the developer's next
// `git status` in a directory the command made; default policy). Affects
// both root and unprivileged callers.
//
// Fixed: walkGitRepos walks the inside of a directory that looks like a
// git directory (but its objects, lfs, annex: gitDirBulk), so the .git
// beside HEAD, objects and refs is found and judged.
func TestRedteam21PlantedRepoInsideBareLookalike(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	var ps []probe
	for _, d := range []string{"plain", "tools", "tools.agentbox-quarantine"} {
		top, g := w+"/"+d, w+"/"+d+"/.git"
		ps = append(ps, control("mkdir_"+d, "mkdir:"+top, ""))
		if d != "plain" {
			// What makes the directory pass for a git directory.
			ps = append(ps,
				control("top_head_"+d, "put:"+top+"/HEAD|"+strconv.Quote("ref: refs/heads/main\n"), ""),
				control("top_objects_"+d, "mkdir:"+top+"/objects", ""),
				control("top_refs_"+d, "mkdir:"+top+"/refs", ""))
		}
		ps = append(ps,
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
	if g := filepath.Join(w, "plain", ".git"); !reported(g) {
		t.Errorf("control: the repository planted in plain/ was not reported: %+v", res.Violations)
	} else if _, err := os.Lstat(g); err == nil {
		t.Errorf("control: the repository planted in plain/ was not disabled")
	}
	for _, d := range []string{"tools", "tools.agentbox-quarantine"} {
		hidden := filepath.Join(w, d, ".git")
		if _, err := os.Lstat(hidden); err == nil {
			t.Errorf("ESCAPE: the repository planted in %s is still in place; reported: %v", hidden, reported(hidden))
		}
		if hostGitRuns(filepath.Dir(hidden), marker, "status") {
			t.Errorf("ESCAPE: `git status` in %s on the host ran the command's planted core.fsmonitor", filepath.Dir(hidden))
		}
		os.Remove(marker)
	}
}
