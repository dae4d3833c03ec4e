//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam21ProtectedDirLinkToRootFromEarlierRun: a directory kept
// read-only only where present (.husky, .hg, .jj, .mise, .lefthook) can
// be made by a command when it is missing, with anything in it. Since the
// plan now holds what every symbolic link inside a read-only directory
// leads to (bindReadOnly -> linkedUnder -> holdTarget), a command that
// leaves .husky/x -> .. behind makes every later run bind the whole
// writable root read-only: the next command cannot write a single file of
// the project (or, in a root of more than 10,000 entries, linkedUnder's
// bound on the root refuses the run outright). Nothing reports the
// planted link (no sweep looks at .husky), and the name in a dot
// directory is easy to miss. The same with a link to a second writable
// root, or to any subdirectory (a quieter sabotage: src/ read-only).
// Control: the first run writes the project and makes the link.
//
// Severity: low (denial of service of later runs by an earlier one, no
// escape). Affects both root and unprivileged callers.
//
// Fixed: holdTarget does not hold what a link inside a read-only
// directory leads to when that holds the directory itself or a writable
// root (planner.enclosing): it is no hook file, and a file reached
// through it is the root's own, writable anyway.
func TestRedteam21ProtectedDirLinkToRootFromEarlierRun(t *testing.T) {
	t.Parallel()
	w := newRepo(t)
	first := []probe{
		control("write_source", "write:"+w+"/main.txt", ""),
		control("mkdir_husky", "mkdir:"+w+"/.husky", ""),
		control("link_root", "symlink:..|"+w+"/.husky/x", ""),
	}
	runProbes(t, ciMgr, first, agentbox.WithWritableRoots(w))
	if _, err := os.Lstat(filepath.Join(w, ".husky", "x")); err != nil {
		t.Fatalf("control: the first run could not make .husky/x: %v", err)
	}
	second := []probe{
		control("write_source_again", "write:"+w+"/main.txt", ""),
		control("write_new_file", "write:"+w+"/new.txt", ""),
		attack("husky_still_read_only", "write:"+w+"/.husky/y", "EROFS"),
	}
	_, res := runProbes(t, ciMgr, second, agentbox.WithWritableRoots(w))
	if b, _ := os.ReadFile(filepath.Join(w, "new.txt")); len(b) == 0 {
		t.Errorf("DENIAL: the second run could not write the project: the link .husky/x -> .. an earlier run left made the whole writable root read-only; violations: %+v", res.Violations)
	}
}
