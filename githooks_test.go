package agentbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGitConfigHooksPath: the values of core.hooksPath that readGitConfig
// finds, as git would read them.
func TestGitConfigHooksPath(t *testing.T) {
	tests := []struct {
		name, config string
		want         []string
	}{
		{"plain", "[core]\n\thooksPath = .husky/_\n", []string{".husky/_"}},
		{"case and spacing", "[CORE]\nHooksPath=.githooks\n", []string{".githooks"}},
		{"quoted with comment", "[core]\n\thookspath = \"my hooks\" ; note\n", []string{"my hooks"}},
		{"trailing comment", "[core]\n\thooksPath = .githooks  # every project\n", []string{".githooks"}},
		{"escaped quote", "[core]\n\thooksPath = \"a\\\"b\"\n", []string{`a"b`}},
		{"one-line section", "[core] hooksPath = x\n", []string{"x"}},
		{"every value", "[core]\nhooksPath = a\n[user]\nname = n\n[core]\nhooksPath = b\n", []string{"a", "b"}},
		{"other section", "[alias]\nhooksPath = a\n", nil},
		{"subsection", "[core \"x\"]\nhooksPath = a\n", nil},
		{"comment lines", "# [core]\n; hooksPath = a\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(f, []byte(tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := readGitConfig([]string{f}, "").hooksPaths; !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHooksDirs(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, ".git", "config"), "[core]\n\thooksPath = .husky/_\n")
	// A linked work tree: a gitlink file naming a git directory whose
	// commondir holds the shared configuration.
	linked := filepath.Join(dir, "linked")
	write(filepath.Join(linked, ".git"), "gitdir: "+filepath.Join(repo, ".git", "worktrees", "linked")+"\n")
	write(filepath.Join(repo, ".git", "worktrees", "linked", "commondir"), "../..\n")

	tests := []struct {
		name    string
		gitPath string
		global  []string
		want    []string
	}{
		{"own config, relative to the work tree", filepath.Join(repo, ".git"), nil, []string{filepath.Join(repo, ".husky/_")}},
		{"global values too", filepath.Join(repo, ".git"), []string{"~/hooks", "/abs/hooks", "~other/x", ""},
			[]string{filepath.Join(home, "hooks"), "/abs/hooks", filepath.Join(repo, ".husky/_")}},
		{"linked work tree", filepath.Join(linked, ".git"), nil, []string{filepath.Join(linked, ".husky/_")}},
		{"no repository", filepath.Join(dir, "none", ".git"), []string{"h"}, []string{filepath.Join(dir, "none", "h")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values := append(tt.global, readGitConfig(repoConfigFiles(tt.gitPath), home).hooksPaths...)
			got := hooksDirs(values, filepath.Dir(tt.gitPath), home)
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = resolvePath(w)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestGlobalConfigFiles(t *testing.T) {
	dir := t.TempDir()
	sys, global := filepath.Join(dir, "system"), filepath.Join(dir, "global")
	if err := os.WriteFile(sys, []byte("[core]\nhooksPath = /sys/hooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(global, []byte("[core]\nhooksPath = ~/hooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_SYSTEM", sys)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	if got, want := readGitConfig(globalConfigFiles(dir), dir).hooksPaths, []string{"/sys/hooks", "~/hooks"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if got, want := readGitConfig(globalConfigFiles(dir), dir).hooksPaths, []string{"~/hooks"}; !slices.Equal(got, want) {
		t.Errorf("GIT_CONFIG_NOSYSTEM: got %q, want %q", got, want)
	}
}

func TestReadGitConfigIncludes(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	write := func(p, s string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	top := write(filepath.Join(dir, "repo", ".git", "config"),
		"[include]\n\tpath = ../shared.gitconfig\n[includeIf \"gitdir:/nowhere/\"]\n\tpath = ~/cond.gitconfig\n"+
			"[include]\n\tpath = /abs/missing\n")
	shared := write(filepath.Join(dir, "repo", "shared.gitconfig"), "[include]\n\tpath = .git/config\n\tpath = nested/more\n")
	more := write(filepath.Join(dir, "repo", "nested", "more"), "[core]\n\thooksPath = x\n[include]\n\tpath = more\n")
	cond := filepath.Join(home, "cond.gitconfig")

	c := readGitConfig([]string{top}, home)
	all, included := c.files, c.included
	if !slices.Equal(c.hooksPaths, []string{"x"}) {
		t.Errorf("hooksPaths %q, want the included file's", c.hooksPaths)
	}
	// Depth first, each file once: shared.gitconfig's include of
	// .git/config and more's of itself add nothing.
	wantIncluded := []string{shared, more, cond, "/abs/missing"}
	for i, p := range wantIncluded {
		wantIncluded[i] = resolvePath(p)
	}
	if !slices.Equal(included, wantIncluded) {
		t.Errorf("included %q, want %q", included, wantIncluded)
	}
	if want := append([]string{resolvePath(top)}, wantIncluded...); !slices.Equal(all, want) {
		t.Errorf("all %q, want %q", all, want)
	}

	// A chain longer than git follows ends at maxIncludeDepth.
	chain := filepath.Join(dir, "chain")
	for i := range maxIncludeDepth + 5 {
		write(filepath.Join(chain, fmt.Sprint(i)), fmt.Sprintf("[include]\n\tpath = %d\n", i+1))
	}
	if inc := readGitConfig([]string{filepath.Join(chain, "0")}, home).included; len(inc) != maxIncludeDepth {
		t.Errorf("a long chain gave %d included files, want %d", len(inc), maxIncludeDepth)
	}
}

func TestHooksDirsGlobal(t *testing.T) {
	home := t.TempDir()
	got := hooksDirs([]string{"/abs/hooks", "~/hooks", ".githooks", "~other/h", ""}, "", home)
	want := []string{resolvePath("/abs/hooks"), resolvePath(filepath.Join(home, "hooks"))}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q (relative values are per repository)", got, want)
	}
}

// TestPlantedHooks: what plantedHooks finds where a relative global
// core.hooksPath points git, in a repository with a work tree and in a
// bare one; and relativeHooksPaths keeps only the relative values.
func TestPlantedHooks(t *testing.T) {
	rel := relativeHooksPaths([]string{"/etc/hooks", "~/hooks", ".githooks", "", "tools/hooks"})
	if !slices.Equal(rel, []string{".githooks", "tools/hooks"}) {
		t.Fatalf("relativeHooksPaths = %q", rel)
	}
	for _, tc := range []struct {
		name  string
		bare  bool
		files map[string]string // relative to the work tree (or bare directory); "->x" makes a symlink
		found bool
	}{
		{"no hooks directory", false, nil, false},
		{"only samples", false, map[string]string{".githooks/pre-commit.sample": "x"}, false},
		{"a hook", false, map[string]string{".githooks/pre-commit": "x"}, true},
		{"a hook in the second path", false, map[string]string{"tools/hooks/post-checkout": "x"}, true},
		{"a symlink for the directory", false, map[string]string{".githooks": "->/tmp"}, true},
		{"a file for the directory", false, map[string]string{".githooks": "x"}, true},
		{"bare, a hook beside its objects", true, map[string]string{".githooks/pre-receive": "x"}, true},
		{"bare, a hook in a work tree it has not", true, map[string]string{"../.githooks/pre-receive": "x"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "r")
			gitPath := filepath.Join(dir, ".git")
			base := dir
			if tc.bare {
				gitPath = filepath.Join(dir, "r.git")
				base = gitPath
			}
			if err := os.MkdirAll(gitPath, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, content := range tc.files {
				p := filepath.Join(base, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				if target, ok := strings.CutPrefix(content, "->"); ok {
					err = os.Symlink(target, p)
				} else {
					err = os.WriteFile(p, []byte(content), 0o755)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got := plantedHooks(gitPath, rel); (got != "") != tc.found {
				t.Errorf("plantedHooks = %q, want found=%v", got, tc.found)
			}
		})
	}
}
