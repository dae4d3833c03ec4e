//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam15ProtectedFileHardLinkedFromEarlierRun: the names kept
// read-only only where they exist (HookManagerFiles, mise's configuration,
// ProtectedIfPresent) may be created by a command. A first command creates
// a harmless lefthook.yml and .mise.toml and, beside them, a hard link to
// each under .cache. The user reviews them (runs `lefthook install`,
// `mise trust`, which trusts by path). In the next run the protected names
// are bound read-only, but a bind mount protects a name, not the inode:
// the command rewrites both through the hard links it left, and what the
// next commit's hook or the user's shell entering the directory runs is
// the command's. The plan never looks at the link count of a protected
// file (a hard link across the read-only mount is refused, EXDEV, so only
// links made before the mount matter).
//
// Fixed: a protected file with more than one name has its other names in
// the writable roots found (a bounded walk, only then) and bound read-only
// too; where they cannot all be looked for, the sandbox is refused
// (planner.otherNames).
func TestRedteam15ProtectedFileHardLinkedFromEarlierRun(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	names := []string{"lefthook.yml", ".mise.toml", ".pre-commit-config.yaml"}
	first := []probe{control("mkdir_cache", "mkdir:"+w+"/.cache", "")}
	for _, n := range names {
		first = append(first,
			control("plant_"+n, "write:"+w+"/"+n, ""),
			control("hardlink_"+n, "link:"+w+"/"+n+"|"+w+"/.cache/"+n, ""))
	}
	runProbes(t, ciMgr, first, agentbox.WithWritableRoots(w))
	// The user reviews what was planted and makes it the project's.
	const reviewed = "reviewed-by-user\n"
	for _, n := range names {
		f, err := os.OpenFile(filepath.Join(w, n), os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(reviewed); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	second := []probe{control("write_source", "write:"+w+"/main.go", "")}
	for _, n := range names {
		second = append(second,
			control("read_"+n, "read:"+w+"/"+n, reviewed),
			attack("write_"+n, "write:"+w+"/"+n, "EROFS"),
			attack("write_via_hardlink_"+n, "write:"+w+"/.cache/"+n))
	}
	runProbes(t, ciMgr, second, agentbox.WithWritableRoots(w))
	for _, n := range names {
		if b, err := os.ReadFile(filepath.Join(w, n)); err != nil || string(b) != reviewed {
			t.Errorf("ESCAPE: protected %s now reads %q on the host (%v)", n, strings.TrimSpace(string(b)), err)
		}
	}
}
