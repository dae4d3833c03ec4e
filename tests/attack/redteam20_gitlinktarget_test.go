//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam20GitlinkTargetInSkippedDir: a repository whose .git is a
// gitlink file (git init --separate-git-dir, git's absorbed layout) is
// found by the scan, but only the gitlink file is kept read-only
// (gitProtection returns the path itself for a file): the git directory
// it names, where the hooks and config are, is protected only if the scan
// happens to find it on its own. Here it lies in the writable root under
// .cache, a directory the scan skips (gitScanSkip): hooks and config are
// writable, and the developer's next `git commit` in app/ runs the
// command's hook. Control: the gitlink file itself is read-only.
//
// Fixed: gitlinkProtection reads the gitlink (and the named directory's
// commondir) and protects the git directory it names like a .git
// directory wherever it lies below a writable root.
//
// Severity: medium (code execution on the host at the next commit, default
// policy; needs a git directory kept apart from its work tree inside the
// writable root, in a skipped directory or past the scan's bounds).
// Affects both root and unprivileged callers.
func TestRedteam20GitlinkTargetInSkippedDir(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	app := filepath.Join(w, "app")
	gitDir := filepath.Join(w, ".cache", "gitdirs", "app")
	writeFile(t, filepath.Join(app, "main.txt"), "code\n", 0o644)
	if err := os.MkdirAll(filepath.Dir(gitDir), 0o755); err != nil {
		t.Fatal(err)
	}
	hostGit(t, app, "init", "-q", "--separate-git-dir", gitDir)
	hostGit(t, app, "add", "main.txt")
	hostGit(t, app, "commit", "-q", "-m", "first")
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
	ps := []probe{
		control("write_source", "write:"+app+"/main.txt", ""),
		control("read_gitlink", "read:"+app+"/.git", "gitdir:"),
		attack("gitlink_rewrite", "write:"+app+"/.git", "EROFS"),
		attack("hook_in_gitdir", "put:"+gitDir+"/hooks/pre-commit|"+hookScript(marker)),
		attack("hook_executable", "chmod:755|"+gitDir+"/hooks/pre-commit"),
	}
	_, res := runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
	if hostGitRuns(app, marker, "commit", "-q", "--allow-empty", "-m", "after the agent") {
		t.Errorf("ESCAPE: `git commit` in %s on the host ran the hook the command wrote into its git directory %s; violations: %+v", app, gitDir, res.Violations)
	}
}
