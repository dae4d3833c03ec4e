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

// TestRedteam20NestedGitConfigHardLinkedFromEarlierRun: a first command
// makes a plain nested repository (sub/.git with HEAD, objects, refs and
// a config holding only bookkeeping keys, which the sweep after the run
// rightly finds harmless and leaves in place) and, beside it, a second
// name for sub/.git/config: a hard link notes.txt at the top of the root.
// In the next run the scan finds sub/.git and keeps it read-only whole,
// but a bind mount holds a name, not the inode, and the hard-link walk
// (linkedUnder) deliberately never looks inside a git directory ("its
// hooks and config are protected on their own" — true only under
// AllowGitWrites; by default .git is one read-only mount). The command
// writes core.fsmonitor into the config through notes.txt. The sweep
// after the second run skips sub/.git, which it saw before the run (same
// path and inode), so nothing is disabled or reported, and the host's next
// `git status` in sub runs the command's code.
//
// Severity: high (code execution on the host at the developer's next git
// command in a project directory, default policy). Affects both root and
// unprivileged callers.
//
// Fixed: linkedUnder looks in a git directory kept read-only whole at the
// names git reads (config, config.worktree, commondir, hooks/, and those
// of its submodules' and linked work trees' git directories: walkGitDir),
// so notes.txt, another name of sub/.git/config, is bound read-only too.
func TestRedteam20NestedGitConfigHardLinkedFromEarlierRun(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	g := w + "/sub/.git"
	safe := strconv.Quote("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n")
	first := []probe{
		control("mkdir_sub", "mkdir:"+w+"/sub", ""),
		control("mkdir_git", "mkdir:"+g, ""),
		control("head", "put:"+g+"/HEAD|"+strconv.Quote("ref: refs/heads/main\n"), ""),
		control("objects", "mkdir:"+g+"/objects", ""),
		control("refs", "mkdir:"+g+"/refs", ""),
		control("config", "put:"+g+"/config|"+safe, ""),
		control("hardlink_config", "link:"+g+"/config|"+w+"/notes.txt", ""),
	}
	_, res := runProbes(t, ciMgr, first, agentbox.WithWritableRoots(w))
	if _, err := os.Lstat(g); err != nil {
		t.Fatalf("control: the harmless repository of the first run was not left in place: %v %+v", err, res.Violations)
	}
	second := []probe{
		control("write_source", "write:"+w+"/main.go", ""),
		control("read_config", "read:"+g+"/config", "repositoryformatversion"),
		attack("config_direct", "put:"+g+"/config|"+fsmonitorConfig("", marker), "EROFS"),
		attack("config_via_hardlink", "put:"+w+"/notes.txt|"+fsmonitorConfig("", marker)),
	}
	_, res = runProbes(t, ciMgr, second, agentbox.WithWritableRoots(w))
	if b, _ := os.ReadFile(filepath.Join(g, "config")); strings.Contains(string(b), "fsmonitor") {
		t.Errorf("ESCAPE: %s/config, read-only in the sandbox, now sets core.fsmonitor on the host; violations: %+v", g, res.Violations)
	}
	if hostGitRuns(filepath.Join(w, "sub"), marker, "status") {
		t.Errorf("ESCAPE: `git status` in %s/sub on the host ran a command the sandbox wrote into the repository's config", w)
	}
}
