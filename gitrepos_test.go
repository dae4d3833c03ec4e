package agentbox

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestInnerGitProtection(t *testing.T) {
	git := filepath.Join(t.TempDir(), ".git")
	// modules/libs is no git directory (neither HEAD nor config): the
	// submodule libs/foo's is modules/libs/foo, and nothing is held in
	// modules/libs.
	for _, d := range []string{"hooks", "modules/a/hooks", "modules/a/modules/b", "worktrees/wt", "modules/a/worktrees/w2", "modules/libs/foo"} {
		if err := os.MkdirAll(filepath.Join(git, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"config", "modules/a/config", "modules/a/modules/b/HEAD", "worktrees/wt/commondir", "modules/a/worktrees/w2/commondir", "modules/libs/foo/HEAD"} {
		if err := os.WriteFile(filepath.Join(git, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i], _ = filepath.Rel(git, p)
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		name      string
		fsc       FilesystemConfig
		ro, holds []string
	}{
		{"read-only .git", FilesystemConfig{}, nil, nil},
		{"git writes", FilesystemConfig{AllowGitWrites: true},
			[]string{"modules/a/config", "modules/a/hooks", "modules/a/modules/b/hooks", "modules/a/worktrees/w2/commondir", "modules/libs/foo/hooks", "worktrees/wt/commondir"},
			[]string{"config.worktree", "modules/a/commondir", "modules/a/config.worktree", "modules/a/modules/b/commondir",
				"modules/a/modules/b/config", "modules/a/modules/b/config.worktree", "modules/a/worktrees/w2/config.worktree",
				"modules/libs/foo/commondir", "modules/libs/foo/config", "modules/libs/foo/config.worktree", "worktrees/wt/config.worktree"}},
		{"git config", FilesystemConfig{AllowGitConfig: true},
			[]string{"modules/a/hooks", "modules/a/modules/b/hooks", "modules/a/worktrees/w2/commondir", "modules/libs/foo/hooks", "worktrees/wt/commondir"},
			[]string{"modules/a/commondir", "modules/a/modules/b/commondir", "modules/libs/foo/commondir"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ro, holds, _ := innerGitProtection(git, tt.fsc, newInnerBudget())
			if got := rel(ro); !slices.Equal(got, tt.ro) {
				t.Errorf("read-only %q, want %q", got, tt.ro)
			}
			if got := rel(slices.Collect(maps.Keys(holds))); !slices.Equal(got, tt.holds) {
				t.Errorf("held %q, want %q", got, tt.holds)
			}
		})
	}
	// A gitlink file has no inner directories.
	link := filepath.Join(t.TempDir(), ".git")
	if err := os.WriteFile(link, []byte("gitdir: "+git+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ro, holds, _ := innerGitProtection(link, FilesystemConfig{AllowGitWrites: true}, newInnerBudget()); len(ro)+len(holds) != 0 {
		t.Errorf("gitlink: %q %q", ro, holds)
	}
}

func TestScanGitRepos(t *testing.T) {
	root := t.TempDir()
	mk := func(dirs []string, files ...string) {
		t.Helper()
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk([]string{".git/objects", "app/.git/objects", "remote.git/objects", "remote.git/refs", "remote.git/hooks",
		"half.git/objects", "node_modules/x/.git", "build/.git", "deep/a/b/c/d/e/f/.git", "lib",
		// Spellings a case-insensitive (casefold) directory resolves as
		// .git, HEAD, objects and refs.
		"folded/.GIT", "bare2/OBJECTS", "bare2/Refſ",
		// A disabled repository is passed over, a work tree named like one is not.
		"q/.git.agentbox-quarantine/objects", "q/.git.agentbox-quarantine/refs", "tools.agentbox-quarantine/.git",
		// Caches and toolchains are passed over (a .git right in one is found),
		// Go's module cache only as pkg/mod.
		"go/pkg/mod/x/.git", ".pyenv/.git", ".pyenv/versions/3/.git", "src/mod/.git"},
		"remote.git/HEAD", "half.git/HEAD", "lib/.git", "bare2/head", "q/.git.agentbox-quarantine/HEAD")
	// git's own test takes links too: HEAD into refs/, objects and refs
	// through links; and HEAD beside a commondir needs neither (they are
	// looked for where commondir points). A directory named HEAD is no HEAD.
	mk([]string{"linked/objs", "linked/refs", "common/x", "dirhead/HEAD", "dirhead/objects", "dirhead/refs"},
		"linked/HEAD", "common/HEAD", "common/commondir")
	if err := os.Symlink("objs", filepath.Join(root, "linked/objects")); err != nil {
		t.Fatal(err)
	}
	mk([]string{"linkhead/objects", "linkhead/refs"})
	if err := os.Symlink("refs/heads/main", filepath.Join(root, "linkhead/HEAD")); err != nil {
		t.Fatal(err)
	}
	got, _, truncated := scanGitRepos(root)
	if truncated {
		t.Error("a small tree was reported as truncated")
	}
	want := []string{filepath.Join(root, "linked"), filepath.Join(root, "linkhead"), filepath.Join(root, "common"),
		filepath.Join(root, "app/.git"), filepath.Join(root, "bare2"), filepath.Join(root, "build/.git"),
		filepath.Join(root, "deep/a/b/c/d/e/f/.git"), filepath.Join(root, "folded/.GIT"), filepath.Join(root, "lib/.git"), filepath.Join(root, "remote.git"),
		filepath.Join(root, "tools.agentbox-quarantine/.git"), filepath.Join(root, ".pyenv/.git"), filepath.Join(root, "src/mod/.git")}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q (not the root's own .git, not half a git directory, not inside node_modules or Go's pkg/mod; deep ones too)", got, want)
	}
}

// TestSweepRepointedGitLink: a .git that is a symbolic link cannot be kept
// read-only, so one that a command points somewhere else is swept like a
// planted one, while one left as it was is not.
func TestSweepRepointedGitLink(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"real/objects", "real/refs", "evil/objects", "evil/refs", "kept", "moved"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"real/HEAD", "evil/HEAD"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"kept", "moved"} {
		if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, d, ".git")); err != nil {
			t.Fatal(err)
		}
	}
	var before []string
	found, _, _ := scanGitRepos(root)
	for _, g := range found {
		before = append(before, repoKey(g))
	}
	moved := filepath.Join(root, "moved", ".git")
	if err := os.Remove(moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "evil"), moved); err != nil {
		t.Fatal(err)
	}
	vs := sweepNewRepos(map[string][]string{root: before}, []string{root}, nil)
	if len(vs) != 1 || !strings.Contains(vs[0].Detail, moved) {
		t.Fatalf("got %+v, want the repointed link alone", vs)
	}
	if _, err := os.Lstat(moved + quarantineSuffix); err != nil {
		t.Errorf("the repointed link was not disabled: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "kept", ".git")); err != nil {
		t.Errorf("the untouched link was disabled: %v", err)
	}
}

// TestSweepUnreadableDir: a repository planted in a directory the command
// then made unreadable (0311: git on the host still finds it) or
// unsearchable (0000: found once the user opens it) is found, disabled
// and reported, and the directories get their modes back.
func TestSweepUnreadableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root lists every directory")
	}
	root := t.TempDir()
	modes := map[string]os.FileMode{"src": 0o311, "hid": 0o000}
	for _, g := range []string{"src/.git", "hid/sub/.git"} {
		for _, d := range []string{"objects", "refs"} {
			if err := os.MkdirAll(filepath.Join(root, g, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, g, "config"), []byte("[core]\n\tfsmonitor = touch /tmp/x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for d, m := range modes {
		if err := os.Chmod(filepath.Join(root, d), m); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(root, d), 0o755) })
	}
	vs := sweepNewRepos(map[string][]string{root: nil}, []string{root}, nil)
	for d, m := range modes {
		fi, err := os.Lstat(filepath.Join(root, d))
		if err != nil || fi.Mode().Perm() != m {
			t.Errorf("%s: mode not given back: %v %v", d, fi.Mode(), err)
		}
		os.Chmod(filepath.Join(root, d), 0o755)
	}
	if len(vs) != 2 {
		t.Errorf("got %+v, want the two repositories", vs)
	}
	for _, g := range []string{"src/.git", "hid/sub/.git"} {
		if _, err := os.Lstat(filepath.Join(root, g+quarantineSuffix)); err != nil {
			t.Errorf("%s was not disabled: %v", g, err)
		}
	}
}
