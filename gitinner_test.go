package agentbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTree makes the files (path → content) below root, with their
// directories; a path ending in / is a directory.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNestedRefusesCutShortScan: a writable root whose scan stops at the
// directory bound is refused before the run, naming the root.
func TestNestedRefusesCutShortScan(t *testing.T) {
	defer func(n int) { gitScanMaxDirs = n }(gitScanMaxDirs)
	gitScanMaxDirs = 10
	root := t.TempDir()
	for i := range 10 {
		writeTree(t, root, map[string]string{fmt.Sprintf("d%d/", i): ""})
	}
	var c gitRepoCache
	_, err := c.nested(root, true)
	if !errors.Is(err, ErrConfigInvalid) || !strings.Contains(err.Error(), root) {
		t.Errorf("a scan cut short gave %v, want a config error naming %s", err, root)
	}
	if err := os.Remove(filepath.Join(root, "d9")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.nested(root, true); err != nil {
		t.Errorf("a root within the bound: %v", err)
	}
}

// TestInnerGitDirsJudgement: what git itself writes for a submodule
// (core.worktree) and a linked work tree (a commondir naming its
// repository) passes; hooks, other keys and a commondir naming another
// repository do not, at any depth of modules.
func TestInnerGitDirsJudgement(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	plain := "ref: refs/heads/main\n"
	writeTree(t, git, map[string]string{
		"HEAD": plain, "objects/": "", "refs/": "",
		"modules/lib/HEAD": plain, "modules/lib/config": "[core]\n\tworktree = ../../../lib\n[remote \"origin\"]\n\turl = /x\n",
		"modules/lib/hooks/pre-commit.sample": "",
		"modules/a/b/HEAD":                    plain, "modules/a/b/hooks/post-checkout": "#!/bin/sh\n",
		"modules/lib/modules/deep/HEAD": plain, "modules/lib/modules/deep/config": "[core]\n\tfsmonitor = x\n",
		"worktrees/wt/HEAD": plain, "worktrees/wt/commondir": "../..\n", "worktrees/wt/gitdir": "/w/.git\n",
		"worktrees/evil/HEAD": plain, "worktrees/evil/commondir": "/elsewhere\n",
		"modules/old.agentbox-quarantine/HEAD": plain, "modules/old.agentbox-quarantine/hooks/x": "",
	})
	dirs, truncated := innerGitDirs(git, newInnerBudget())
	if truncated {
		t.Error("truncated")
	}
	var risky, safe []string
	for _, d := range dirs {
		rel, _ := filepath.Rel(git, d.path)
		if riskyGitDir(readNoFollow, d.path, d.allow) != "" {
			risky = append(risky, rel)
		} else {
			safe = append(safe, rel)
		}
	}
	slices.Sort(risky)
	slices.Sort(safe)
	if want := []string{"modules/a/b", "modules/lib/modules/deep", "worktrees/evil"}; !slices.Equal(risky, want) {
		t.Errorf("risky %q, want %q", risky, want)
	}
	if want := []string{"modules/lib", "worktrees/wt"}; !slices.Equal(safe, want) {
		t.Errorf("safe %q, want %q", safe, want)
	}
	// The same directories as a repository of their own are suspect.
	if riskyRepo(filepath.Join(git, "modules/lib")) == "" || riskyRepo(filepath.Join(git, "worktrees/wt")) == "" {
		t.Error("core.worktree or a commondir passed in a repository of its own")
	}
}

// TestGitlinkProtection: the git directory a gitlink names, and its common
// directory, are protected where they lie below a writable root.
func TestGitlinkProtection(t *testing.T) {
	root, outside := resolvePath(t.TempDir()), resolvePath(t.TempDir())
	plain := "ref: refs/heads/main\n"
	writeTree(t, root, map[string]string{
		"app/.git": "gitdir: ../.cache/gitdirs/app\n", ".cache/gitdirs/app/HEAD": plain,
		"wt/.git": "gitdir: " + root + "/main/.git/worktrees/wt\n", "main/.git/HEAD": plain,
		"main/.git/worktrees/wt/HEAD": plain, "main/.git/worktrees/wt/commondir": "../..\n",
		"far/.git": "gitdir: " + outside + "\n", "none/.git": "gitdir: ../nowhere\n",
	})
	writeTree(t, outside, map[string]string{"HEAD": plain})
	for _, c := range []struct {
		gitlink string
		fsc     FilesystemConfig
		want    []string
	}{
		{"app/.git", FilesystemConfig{}, []string{".cache/gitdirs/app"}},
		{"app/.git", FilesystemConfig{AllowGitWrites: true}, []string{".cache/gitdirs/app/hooks", ".cache/gitdirs/app/config"}},
		{"wt/.git", FilesystemConfig{}, []string{"main/.git/worktrees/wt", "main/.git"}},
		{"far/.git", FilesystemConfig{}, nil},
		{"none/.git", FilesystemConfig{}, nil},
		{"main/.git", FilesystemConfig{}, nil}, // a directory: gitProtection's
	} {
		ro, _, _ := gitlinkProtection(filepath.Join(root, c.gitlink), []string{root}, c.fsc, newInnerBudget())
		var got []string
		for _, p := range ro {
			rel, _ := filepath.Rel(root, p)
			got = append(got, rel)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %+v: read-only %q, want %q", c.gitlink, c.fsc, got, c.want)
		}
	}
}

// TestInnerGitDirsHalfGitDir: a config a command put in modules/libs (no
// git directory to git, which lacks HEAD, objects and refs there) does not
// hide modules/libs/bar, which git takes for the submodule libs/bar's git
// directory; the files of modules/libs itself are not listed; a link in
// place of a git directory is.
func TestInnerGitDirsHalfGitDir(t *testing.T) {
	g := filepath.Join(t.TempDir(), ".git")
	for _, d := range []string{"modules/libs/bar", "modules/libs/hooks"} {
		if err := os.MkdirAll(filepath.Join(g, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"modules/libs/config", "modules/libs/hooks/post-checkout", "modules/libs/bar/HEAD"} {
		if err := os.WriteFile(filepath.Join(g, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../../evil", filepath.Join(g, "modules", "lib")); err != nil {
		t.Fatal(err)
	}
	dirs, truncated := innerGitDirs(g, newInnerBudget())
	var got []string
	for _, d := range dirs {
		rel, _ := filepath.Rel(g, d.path)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{"modules/lib", "modules/libs", "modules/libs/bar"}; truncated || !slices.Equal(got, want) {
		t.Errorf("innerGitDirs = %q (truncated %v), want %q", got, truncated, want)
	}
}

// TestInnerGitDirsBounds checks the walk's bounds: a modules that is a
// symbolic link is listed whole and not walked into; the budget shared by
// a root's repositories is spent across calls and cuts the second walk
// short; and a repository whose walk is cut short keeps its modules and
// worktrees read-only whole.
func TestInnerGitDirsBounds(t *testing.T) {
	root := t.TempDir()
	elsewhere := filepath.Join(root, "elsewhere")
	writeTree(t, elsewhere, map[string]string{"sub/HEAD": "ref: refs/heads/main\n"})
	linked := filepath.Join(root, "a", ".git")
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(linked, "modules")); err != nil {
		t.Fatal(err)
	}
	dirs, truncated := innerGitDirs(linked, newInnerBudget())
	if truncated || len(dirs) != 1 || dirs[0].path != filepath.Join(linked, "modules") || !dirs[0].notDir {
		t.Errorf("a linked modules: innerGitDirs = %+v (truncated %v), want the link alone, judged whole", dirs, truncated)
	}

	git := filepath.Join(root, "b", ".git")
	tree := map[string]string{"worktrees/": ""}
	for i := range 5 {
		tree[fmt.Sprintf("modules/m%d/HEAD", i)] = "ref: refs/heads/main\n"
	}
	writeTree(t, git, tree)
	budget := 3
	if _, truncated := innerGitDirs(git, &budget); !truncated || budget != 0 {
		t.Errorf("a walk past the budget: truncated %v, budget left %d; want true, 0", truncated, budget)
	}
	if _, truncated := innerGitDirs(git, &budget); !truncated {
		t.Error("a walk on a spent budget was not cut short")
	}
	budget = 3
	ro, _, truncated := innerGitProtection(git, FilesystemConfig{AllowGitWrites: true}, &budget)
	if !truncated || !slices.Contains(ro, filepath.Join(git, "modules")) || !slices.Contains(ro, filepath.Join(git, "worktrees")) {
		t.Errorf("a walk cut short: read-only %q (truncated %v); want modules and worktrees whole", ro, truncated)
	}
	ro, _, truncated = innerGitProtection(git, FilesystemConfig{AllowGitWrites: true}, newInnerBudget())
	if truncated || slices.Contains(ro, filepath.Join(git, "modules")) {
		t.Errorf("a whole walk: read-only %q (truncated %v); want each git directory's own, not modules whole", ro, truncated)
	}
}
