//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWalkGitDirNestedModules: a submodule at a nested path keeps its git
// directory at modules/libs/foo (modules/libs holds neither HEAD nor
// config); its hooks are looked through, and a link in place of a git
// directory below modules/ is reported. A bound git directory is known by
// HEAD, objects and refs, whatever its name.
func TestWalkGitDirNestedModules(t *testing.T) {
	g := filepath.Join(t.TempDir(), ".git")
	foo := filepath.Join(g, "modules", "libs", "foo")
	for _, d := range []string{"objects", "refs", "hooks"} {
		if err := os.MkdirAll(filepath.Join(foo, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(foo, "HEAD"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(foo, "hooks", "pre-commit")
	if err := os.Symlink("../../../../../x", hook); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(g, "modules", "lib")
	if err := os.Symlink("../../evil", lib); err != nil {
		t.Fatal(err)
	}
	var links []string
	budget := maxInsideWalk
	if err := walkGitDir(g, linkWalk{budget: &budget, found: func(string, *unix.Stat_t) {}, link: func(l string) { links = append(links, l) }}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(links)
	if want := []string{lib, hook}; !slices.Equal(links, want) {
		t.Errorf("links %q, want %q", links, want)
	}
	if !isGitDirectory(foo) || isGitDirectory(filepath.Dir(foo)) {
		t.Errorf("isGitDirectory: %s should be one, %s not", foo, filepath.Dir(foo))
	}
}
