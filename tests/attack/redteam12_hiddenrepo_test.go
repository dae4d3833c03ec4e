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

// TestRedteam12PlantedRepositoryInUnreadableDir plants a repository whose
// configuration runs a command (core.fsmonitor) in two directories of a
// writable root, and then takes the read permission off one of them (mode
// 0311: still searchable, so git on the host finds and runs the repository
// in it). The sweep after the command (sweepNewRepos, scanGitRepos) skips
// a directory it cannot list without saying so: the repository there is
// neither disabled nor reported. The one in the readable directory is
// (control). Root's agentbox reads every directory, so only an
// unprivileged caller is attacked.
//
// Fixed: the scan (scanGitRepos, scanAccess) gives a directory of the
// caller's that lacks the owner's read or search permission both for the
// walk, opened beneath the root without following links and changed
// through that descriptor, and its mode back after the sweep's renames; a
// directory that still cannot be listed has its .git looked up directly
// and is reported as a planted-repository violation.
func TestRedteam12PlantedRepositoryInUnreadableDir(t *testing.T) {
	t.Parallel()
	if isRoot {
		t.Skip("root lists every directory: the sweep finds the repository")
	}
	w := newDir(t, 0o755)
	for _, d := range []string{"src", "lib"} {
		writeFile(t, filepath.Join(w, d, "code.txt"), "code\n", 0o644)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(w, "src"), 0o755) })
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	var ps []probe
	for _, d := range []string{"lib", "src"} {
		g := filepath.Join(w, d, ".git")
		ps = append(ps,
			control("mkdir_"+d, "mkdir:"+g, ""),
			control("head_"+d, "put:"+g+"/HEAD|"+strconv.Quote("ref: refs/heads/main\n"), ""),
			control("objects_"+d, "mkdir:"+g+"/objects", ""),
			control("refs_"+d, "mkdir:"+g+"/refs", ""),
			control("config_"+d, "put:"+g+"/config|"+fsmonitorConfig("", marker), ""),
		)
	}
	ps = append(ps, control("hide_src", "chmod:311|"+filepath.Join(w, "src"), ""))
	_, res := runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	reported := func(g string) bool {
		for _, v := range res.Violations {
			if strings.HasPrefix(v.Rule, "planted-repository") && strings.Contains(v.Detail, g) {
				return true
			}
		}
		return false
	}
	lib, src := filepath.Join(w, "lib", ".git"), filepath.Join(w, "src", ".git")
	if _, err := os.Lstat(lib + ".agentbox-quarantine"); err != nil || !reported(lib) {
		t.Errorf("control: the repository planted in a readable directory was not disabled and reported: %v %+v", err, res.Violations)
	}
	if _, err := os.Lstat(src); err == nil {
		t.Errorf("ESCAPE: the repository planted in %s (mode 0311) is still in place; reported: %v", filepath.Dir(src), reported(src))
		if !reported(filepath.Dir(src)) {
			t.Errorf("ESCAPE: the sweep did not say that it could not list %s", filepath.Dir(src))
		}
	}
}
