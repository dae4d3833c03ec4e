//go:build linux

package agentbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam38InnerWalkFollowsLink: a command plants r/.git holding only
// a symbolic link modules -> a host directory that its policy denies it
// to read (WithDenyRead). After the run agentbox's sweep walks the
// submodule git directories of r/.git (innerGitDirs) with os.ReadDir,
// unconfined and following the link, and reports every subdirectory of
// the denied directory holding a HEAD or a config (a project, ~/.ssh) by
// name, as a planted-repository violation: the denied directory's listing
// reaches the report (and the audit log), and the walk runs in host
// directories outside every writable root.
//
// Severity: low (names only, of entries with a HEAD or config; the
// content is not read: access.read refuses the link).
//
// Found by red-team round 38; fixed: innerGitDirs lists beneath the git
// directory without following links, and a modules or worktrees that is
// one is judged whole (renamed away as a link git would follow).
//
// Control: the command itself cannot list the denied directory.
func TestRedteam38InnerWalkFollowsLink(t *testing.T) {
	w := hostDir(t)
	if err := os.Chmod(w, 0o777); err != nil {
		t.Fatal(err)
	}
	secret := hostDir(t)
	if err := os.MkdirAll(filepath.Join(secret, "secretproject-x7q"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "secretproject-x7q", "config"), []byte("k\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, agentbox.CIConfig())
	res, err := m.Exec(context.Background(),
		"ls "+secret+" >/dev/null 2>&1 && echo listed; mkdir -p r/.git && ln -s "+secret+" r/.git/modules && echo planted",
		agentbox.WithWritableRoots(w), agentbox.WithWorkingDir(w), agentbox.WithDenyRead(secret),
		agentbox.WithTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Stdout, "listed") || !strings.Contains(res.Stdout, "planted") {
		t.Fatalf("control: stdout %q (the command must not list the denied directory, and must plant)", res.Stdout)
	}
	for _, v := range res.Violations {
		t.Logf("violation %s: %s", v.Rule, v.Detail)
		if strings.Contains(v.Detail+v.Path, "secretproject-x7q") {
			t.Errorf("agentbox listed the denied %s through the planted link and reported %q", secret, v.Detail)
		}
	}
}
