//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// mkTree makes the directories dirs and the files files (contents "x")
// under w.
func mkTree(t *testing.T, w string, dirs, files []string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(w, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBuildPlanSymlinksInsideProtectedDir: what a symbolic link inside a
// directory kept read-only leads to in the writable root is bound
// read-only, the links on the way there held; a target inside the
// directory itself or outside the writable roots costs nothing; a link
// through /proc refuses the plan.
func TestBuildPlanSymlinksInsideProtectedDir(t *testing.T) {
	w := filepath.Join(hostTempDir(t), "work")
	mkTree(t, w, []string{".git/hooks", ".claude", ".husky", "scripts", "real"},
		[]string{"scripts/pre-commit", "real/claude.json", ".husky/pre-commit"})
	links := map[string]string{
		".git/hooks/pre-commit":  "../../scripts/pre-commit",
		"conf":                   "real",
		".claude/settings.json":  "../conf/claude.json",
		".husky/pre-push":        "pre-commit",
		".claude/outside":        "/etc/hostname",
		".git/hooks/post-commit": "../../scripts/missing",
	}
	for l, dest := range links {
		if err := os.Symlink(dest, filepath.Join(w, l)); err != nil {
			t.Fatal(err)
		}
	}
	spec := &sandbox.Spec{Filesystem: sandbox.Filesystem{Writable: []string{w}, Protected: []string{".git", ".claude", ".husky"}}}
	pl, err := buildPlan(spec, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()
	for _, p := range []string{"scripts/pre-commit", "real/claude.json", "scripts/missing"} {
		if op, _, ok := opAt(pl, filepath.Join(w, p)); !ok || op.Kind != opBindRO {
			t.Errorf("the link target %s is not bound read-only: %+v", p, op)
		}
	}
	if op, _, ok := opAt(pl, filepath.Join(w, "conf")); !ok || op.Kind != opHoldLink {
		t.Errorf("the link conf on the way to a target is not held: %+v", op)
	}
	for _, p := range []string{".husky/pre-commit", ".husky/pre-push", ".git/hooks/pre-commit", ".claude/settings.json"} {
		if op, _, ok := opAt(pl, filepath.Join(w, p)); ok {
			t.Errorf("%s, inside a read-only directory, got a mount of its own: %+v", p, op)
		}
	}

	if err := os.Symlink("/proc/self/cwd/x", filepath.Join(w, ".claude", "proc")); err != nil {
		t.Fatal(err)
	}
	if pl, err := buildPlan(spec, false); err == nil || !strings.Contains(err.Error(), "/proc") {
		if pl != nil {
			pl.removePlaceholders()
		}
		t.Errorf("a link through /proc inside a protected directory: %v; want the plan refused", err)
	}
}

// TestBuildPlanGitDirHardLinks: a git directory kept read-only whole (a
// nested repository an earlier command made) has its config, hooks and
// submodules' config looked at for other names, which are bound
// read-only; its objects are not; past the bound the plan is refused.
func TestBuildPlanGitDirHardLinks(t *testing.T) {
	w := filepath.Join(hostTempDir(t), "work")
	g := filepath.Join(w, "sub", ".git")
	mkTree(t, w, []string{"sub/.git/hooks", "sub/.git/objects/ab", "sub/.git/modules/m/hooks"},
		[]string{"sub/.git/config", "sub/.git/hooks/post-checkout", "sub/.git/objects/ab/cd", "sub/.git/modules/m/config"})
	others := map[string]string{
		"sub/.git/config":              "notes.txt",
		"sub/.git/hooks/post-checkout": "h",
		"sub/.git/modules/m/config":    "m.txt",
		"sub/.git/objects/ab/cd":       "obj",
	}
	for f, other := range others {
		if err := os.Link(filepath.Join(w, f), filepath.Join(w, other)); err != nil {
			t.Fatal(err)
		}
	}
	spec := &sandbox.Spec{Filesystem: sandbox.Filesystem{Writable: []string{w}, DenyWrite: []string{g}}}
	pl, err := buildPlan(spec, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.removePlaceholders()
	for _, p := range []string{"notes.txt", "h", "m.txt"} {
		if op, _, ok := opAt(pl, filepath.Join(w, p)); !ok || op.Kind != opBindRO {
			t.Errorf("%s, another name of a file git reads, is not bound read-only: %+v", p, op)
		}
	}
	if _, _, ok := opAt(pl, filepath.Join(w, "obj")); ok {
		t.Errorf("a git object's other name was bound: the objects were walked")
	}

	defer func(n int) { maxInsideWalk = n }(maxInsideWalk)
	maxInsideWalk = 2
	if pl, err := buildPlan(spec, false); err == nil || !strings.Contains(err.Error(), "cannot look through") {
		if pl != nil {
			pl.removePlaceholders()
		}
		t.Errorf("a git directory past its bound: %v; want the plan refused", err)
	}
}
