//go:build linux

package attack_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// TestRedteam18ProtectedDirFileHardLinkedFromEarlierRun: the fix for
// TestRedteam15ProtectedFileHardLinkedFromEarlierRun walks the writable
// roots for other names only of protected *files* (a regular file with
// more than one link). The protected names kept read-only where present
// include directories (.husky, .lefthook, .mise, .config/mise, .hg, .jj,
// .config/git, .config/fish, ...), which are bound read-only whole: a file
// inside one is never looked at. A first command creates .husky with a
// harmless pre-commit, .hg with a harmless hgrc, .config/git/config, and
// a hard link to each under .cache. The user reviews them. In the next
// run the directories are read-only, but the files inside are written
// through the links the first command left: the next commit's husky hook,
// Mercurial's next command and git's next run are the command's.
//
// Fixed: the files inside a directory kept read-only whole are looked
// through for other names too (linkedUnder, bounded; a git directory is
// not), and those names bound read-only.
func TestRedteam18ProtectedDirFileHardLinkedFromEarlierRun(t *testing.T) {
	t.Parallel()
	w := newDir(t, 0o755)
	giveToSandboxUser(t, w)
	dirs := []string{".husky", ".hg", ".config", ".config/git", ".lefthook"}
	files := []string{".husky/pre-commit", ".hg/hgrc", ".config/git/config", ".lefthook/pre-commit"}
	first := []probe{control("mkdir_cache", "mkdir:"+w+"/.cache", "")}
	for _, d := range dirs {
		first = append(first, control("mkdir_"+d, "mkdir:"+w+"/"+d, ""))
	}
	for i, n := range files {
		link := w + "/.cache/l" + string(rune('0'+i))
		first = append(first,
			control("plant_"+n, "write:"+w+"/"+n, ""),
			control("hardlink_"+n, "link:"+w+"/"+n+"|"+link, ""))
	}
	runProbes(t, ciMgr, first, agentbox.WithWritableRoots(w))
	const reviewed = "reviewed-by-user\n"
	for _, n := range files {
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
	for i, n := range files {
		link := w + "/.cache/l" + string(rune('0'+i))
		second = append(second,
			control("read_"+n, "read:"+w+"/"+n, reviewed),
			attack("write_"+n, "write:"+w+"/"+n, "EROFS"),
			attack("write_via_hardlink_"+n, "write:"+link))
	}
	runProbes(t, ciMgr, second, agentbox.WithWritableRoots(w))
	for _, n := range files {
		if b, err := os.ReadFile(filepath.Join(w, n)); err != nil || string(b) != reviewed {
			t.Errorf("ESCAPE: protected %s now reads %q on the host (%v)", n, strings.TrimSpace(string(b)), err)
		}
	}
}
