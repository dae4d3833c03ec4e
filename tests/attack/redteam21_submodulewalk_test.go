//go:build linux

package attack_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam21SubmoduleGitDirWalkedWhole: a checked-out submodule's
// .git is a gitlink naming .git/modules/NAME, which gitlinkProtection now
// keeps read-only like a .git directory: the whole of it, by default.
// bindReadOnly then looks through it for hard links and symbolic links
// (linkedUnder), but it treats only a directory named ".git" as a git
// directory (isGitDirectory): .git/modules/NAME is walked whole, objects,
// refs, logs and lfs included, which walkGitDir leaves out of a .git
// because they are large. Past 10,000 entries (maxInsideWalk) the run is
// refused. A submodule with Git LFS content (lfs/objects/xx/yy/OID), or
// with thousands of loose objects and refs, refuses every command in the
// superproject, by default. (Its objects hard-linked by a local clone are
// also each looked for across all writable roots, up to 200,000 entries.)
// Control: the same number of entries in the top repository's own
// .git/lfs runs.
//
// Severity: low (a legitimate-work regression: refusal, no escape; default
// policy, a repository with a submodule that uses LFS). Affects both root
// and unprivileged callers.
//
// Fixed: isGitDirectory (plan_links.go) recognises a git directory by
// HEAD, objects and refs whatever its name, so a bound .git/modules/lib
// is looked through by walkGitDir (config, hooks, …), not whole.
func TestRedteam21SubmoduleGitDirWalkedWhole(t *testing.T) {
	t.Parallel()
	fillLFS := func(gitDir string) {
		for i := 0; i < 6000; i++ {
			oid := fmt.Sprintf("%x", sha256.Sum256([]byte(strconv.Itoa(i))))
			writeFile(t, filepath.Join(gitDir, "lfs", "objects", oid[:2], oid[2:4], oid), "x", 0o644)
		}
	}
	run := func(w string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := ciMgr.ExecArgs(ctx, "/bin/sh", []string{"-c", "echo ok > " + w + "/out"},
			agentbox.WithWorkingDir("/"), agentbox.WithWritableRoots(w))
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("exit %d: %s", res.ExitCode, res.Stderr)
		}
		return err
	}
	lib := newRepo(t)
	top := newRepo(t)
	fillLFS(filepath.Join(top, ".git"))
	if err := run(top); err != nil {
		t.Fatalf("control: a repository with 6,000 LFS objects in its .git was refused: %v", err)
	}
	w := newRepo(t)
	hostGit(t, w, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	hostGit(t, w, "commit", "-q", "-m", "add lib")
	fillLFS(filepath.Join(w, ".git", "modules", "lib"))
	if err := run(w); err != nil {
		t.Errorf("REGRESSION: a repository whose submodule holds 6,000 LFS objects is refused: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w, "out")); err != nil {
		t.Logf("the command did not run: %v", err)
	}
}
