//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam21SubmoduleNameWithSlash: a submodule added at a nested path
// (`git submodule add URL libs/foo`, the name defaulting to the path) keeps
// its git directory at .git/modules/libs/foo. With AllowGitWrites,
// innerGitProtection (gitrepos.go) takes every entry of modules/ for a git
// directory: it keeps modules/libs/hooks and holds modules/libs/config,
// config.worktree and commondir (placeholders in a directory that is no
// git directory), then looks only in modules/libs/modules and
// modules/libs/worktrees. modules/libs/foo, the real git directory, is
// never reached, so its hooks and config stay writable wherever no
// gitlink names it (gitlinkProtection): here the submodule was set aside
// with `git submodule deinit`, which keeps the git directory for a later
// `git submodule update --init`. (walkGitDir misses it the same way.) The
// command writes a post-checkout hook and a core.fsmonitor there. The
// sweep after the run then finds modules/libs holding the held config
// placeholders, takes it for a new git directory and tries to rename it,
// but a directory modules/libs.agentbox-quarantine the command made first
// makes the rename fail: the report names modules/libs and "a
// config.worktree", not the hook. The developer's next `git submodule
// update --init` reuses modules/libs/foo and runs the command's code on
// the host. Control: the same writes to a submodule at a plain path (lib)
// are refused, as is the top .git's hook.
//
// Severity: high (code execution on the host; needs AllowGitWrites and a
// set-aside submodule at a nested path). Affects both root and
// unprivileged callers.
//
// Fixed: innerGitProtection and walkGitDir use innerGitDirs' rule (a
// directory below modules/ with a HEAD or a config is a git directory,
// one with neither is looked into), so modules/libs/foo's hooks and config
// are kept and nothing is held in modules/libs; quarantine renames to a
// name with a random part when the plain one is taken.
func TestRedteam21SubmoduleNameWithSlash(t *testing.T) {
	t.Parallel()
	cfg := ciConfig()
	cfg.Filesystem.AllowGitWrites = true
	m := newManager(t, cfg)
	lib := newRepo(t)
	w := newRepo(t)
	hostGit(t, w, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	hostGit(t, w, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "libs/foo")
	hostGit(t, w, "commit", "-q", "-m", "add submodules")
	// Set aside for now (the git directories stay, for a later update --init).
	hostGit(t, w, "submodule", "deinit", "-q", "--all")
	if isRoot {
		if err := filepath.Walk(w, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, 65534, 65534)
		}); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(newDir(t, 0o777), "pwned")
	plain, nested := w+"/.git/modules/lib", w+"/.git/modules/libs/foo"
	config := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../../../../libs/foo\n\tfsmonitor = \"touch " + marker + " #\"\n"
	hook := "post-checkout"
	ps := []probe{
		control("write_source", "write:"+w+"/main.txt", ""),
		control("git_objects_write", "mkdir:"+w+"/.git/objects/agentbox-control", ""),
		attack("top_hook", "put:"+w+"/.git/hooks/"+hook+"|"+hookScript(marker), "EROFS"),
		attack("plain_module_hook", "put:"+plain+"/hooks/"+hook+"|"+hookScript(marker), "EROFS"),
		attack("plain_module_config", "write:"+plain+"/config", "EROFS"),
		attack("nested_module_hook", "put:"+nested+"/hooks/"+hook+"|"+hookScript(marker), "EROFS"),
		attack("nested_module_hook_exec", "chmod:755|"+nested+"/hooks/"+hook, "EROFS", "ENOENT"),
		attack("nested_module_config", "put:"+nested+"/config|"+strconv.Quote(config), "EROFS"),
		// The sweep after the run renames a new git directory to
		// NAME.agentbox-quarantine; a non-empty directory of that name
		// makes the rename fail.
		control("block_rename", "mkdir:"+w+"/.git/modules/libs.agentbox-quarantine", ""),
		control("block_rename_file", "write:"+w+"/.git/modules/libs.agentbox-quarantine/x", ""),
	}
	_, res := runProbes(t, m, ps, agentbox.WithWritableRoots(w))
	t.Logf("violations: %+v", res.Violations)
	if hostGitRuns(w, marker, "-c", "protocol.file.allow=always", "submodule", "update", "--init") {
		t.Errorf("ESCAPE: `git submodule update --init` in %s on the host ran the command's code from %s; violations: %+v", w, nested, res.Violations)
	}
}
