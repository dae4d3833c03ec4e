//go:build linux

package attack_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam20UserRepoPastScanBounds: the repositories below the top of
// a writable root are found by a walk bounded in depth (5) and in
// directories (5,000) (gitRepoCache.nested, scanGitRepos), and only those
// found are kept read-only. The bounds are documented for repositories a
// command plants; but the user's own repositories past them are silently
// left writable before the run: nested() drops scanGitRepos's "truncated"
// result, and the depth bound is never reported at all. A command writes a
// hook and core.fsmonitor into (deep) a repository six directories down,
// and (wide) one two directories down in a root with 5,000 directories at
// its top, which the breadth-first walk all visits first (a first command
// can make those, or a workspace simply has them). The host's next `git
// status` there runs the command's code. Control: the root's own
// repository, and one within the bounds in the same root, stay read-only.
//
// Fixed: the walk has no depth bound and a directory bound of 50,000
// (gitScanMaxDirs); a walk the bound cuts short before the run refuses it
// (scanBoundError, ErrConfigInvalid naming the root), so no repository of
// the user's is left writable unnoticed.
//
// Severity: medium (code execution on the host at the developer's next git
// command; needs a workspace deeper or larger than the bounds, which a
// home directory or a monorepo given as a writable root easily is, or a
// first command that makes the directories). Affects both root and
// unprivileged callers.
func TestRedteam20UserRepoPastScanBounds(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		deep string // relative directory of the repository past the bounds
		wide int    // directories to make before it
		near string // a repository within the bounds, if any
	}{
		{name: "deep", deep: "a/b/c/d/e/f", near: "a/b/c/d/e"},
		{name: "wide", deep: "zz/repo", wide: 5001},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newDir(t, 0o755)
			for i := 0; i < c.wide; i++ {
				if err := os.Mkdir(filepath.Join(w, fmt.Sprintf("d%05d", i)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			marker := filepath.Join(newDir(t, 0o777), "pwned")
			repos := []string{"", c.deep}
			if c.near != "" {
				repos = append(repos, c.near)
			}
			for _, rel := range repos {
				r := filepath.Join(w, rel)
				writeFile(t, filepath.Join(r, "main.txt"), "code\n", 0o644)
				hostGit(t, r, "init", "-q")
				hostGit(t, r, "add", "main.txt")
				hostGit(t, r, "commit", "-q", "-m", "first")
			}
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
			top, far := filepath.Join(w, ".git"), filepath.Join(w, c.deep, ".git")
			ps := []probe{
				control("write_source", "write:"+w+"/"+c.deep+"/main.txt", ""),
				attack("top_hook", "put:"+top+"/hooks/pre-commit|"+hookScript(marker), "EROFS"),
			}
			if c.near != "" {
				near := filepath.Join(w, c.near, ".git")
				ps = append(ps,
					attack("near_hook", "put:"+near+"/hooks/pre-commit|"+hookScript(marker), "EROFS"),
					attack("near_config", "put:"+near+"/config|"+fsmonitorConfig(readOrEmpty(near+"/config"), marker), "EROFS"))
			}
			ps = append(ps,
				attack("far_hook", "put:"+far+"/hooks/pre-commit|"+hookScript(marker)),
				attack("far_config", "put:"+far+"/config|"+fsmonitorConfig(readOrEmpty(far+"/config"), marker)))
			_, res := runProbes(t, ciMgr, ps, agentbox.WithWritableRoots(w))
			if b, _ := os.ReadFile(filepath.Join(far, "config")); strings.Contains(string(b), "fsmonitor") {
				t.Errorf("ESCAPE: the user's repository %s now sets core.fsmonitor; violations: %+v", far, res.Violations)
			}
			if hostGitRuns(filepath.Dir(far), marker, "status") {
				t.Errorf("ESCAPE: `git status` in the user's repository %s on the host ran the command's code", filepath.Dir(far))
			}
		})
	}
}
