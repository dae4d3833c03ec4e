package agentbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// TestGrantedRoots: the record keeps every writable root once, across
// calls, and drops those whose directory is gone once it grows.
func TestGrantedRoots(t *testing.T) {
	t.Setenv(paths.EnvStateDir, filepath.Join(t.TempDir(), "state"))
	if got, err := grantedRoots(); err != nil || got != nil {
		t.Fatalf("no record yet: %v, %v", got, err)
	}
	kept := t.TempDir()
	steps := []struct {
		add  []string
		want []string
	}{
		{[]string{kept, "/gone/a"}, []string{kept, "/gone/a"}},
		{[]string{"/gone/a", kept}, []string{kept, "/gone/a"}},
		{[]string{"/gone/b", "/gone/b"}, []string{kept, "/gone/a", "/gone/b"}},
		{[]string{"/with\nnewline"}, []string{kept, "/gone/a", "/gone/b", "/with\nnewline"}},
	}
	for i, st := range steps {
		if err := recordGranted(st.add); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		got, err := grantedRoots()
		if err != nil || !slices.Equal(grantedPaths(got), st.want) {
			t.Fatalf("step %d: got %q, %v; want %q", i, grantedPaths(got), err, st.want)
		}
	}

	var many []string
	for i := range grantedPruneAt {
		many = append(many, fmt.Sprintf("/gone/%d", i))
	}
	if err := recordGranted(many); err != nil {
		t.Fatal(err)
	}
	if err := recordGranted([]string{"/gone/last"}); err != nil {
		t.Fatal(err)
	}
	got, err := grantedRoots()
	if err != nil {
		t.Fatal(err)
	}
	if ps := grantedPaths(got); !slices.Contains(ps, kept) || len(ps) > 2 {
		t.Fatalf("after pruning: %d entries (%q...); want %s and at most the newest", len(ps), ps[:min(3, len(ps))], kept)
	}
}

func grantedPaths(gs []grantedRoot) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.path)
	}
	return out
}

// TestPlantAreaByIdentity: a link inside a once-granted directory counts as
// planted after the directory (or a parent) is renamed, since the record
// knows the directory by device and inode, not only by path; a link the
// user made elsewhere does not.
func TestPlantAreaByIdentity(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no inode numbers")
	}
	t.Setenv(paths.EnvStateDir, filepath.Join(t.TempDir(), "state"))
	base := t.TempDir()
	granted := filepath.Join(base, "parent", "project")
	if err := os.MkdirAll(granted, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := recordGranted([]string{granted}); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(granted, "out")); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(base, "mine")
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(mine, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(base, "parent"), filepath.Join(base, "renamed")); err != nil {
		t.Fatal(err)
	}
	roots, err := grantedRoots()
	if err != nil {
		t.Fatal(err)
	}
	area := newPlantArea(nil, roots)
	if l := plantableLink(filepath.Join(base, "renamed", "project", "out", "x"), area); l == "" {
		t.Error("a link in a granted directory whose parent was renamed was not caught")
	}
	if l := plantableLink(filepath.Join(mine, "out", "x"), area); l != "" {
		t.Errorf("the user's own link %s was taken for a planted one", l)
	}
}

// TestUntrustedLink: a link in a directory others may write (without the
// sticky bit) could be anyone's; one in a sticky directory or in the
// caller's own is the caller's.
func TestUntrustedLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no modes")
	}
	target := t.TempDir()
	for _, tc := range []struct {
		mode os.FileMode
		want bool
	}{
		{0o755, false},
		{0o777, true},
		{0o777 | os.ModeSticky, false},
	} {
		dir := filepath.Join(t.TempDir(), "d")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, "l")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, tc.mode); err != nil {
			t.Fatal(err)
		}
		if got := untrustedLink(filepath.Join(dir, "l")); got != tc.want {
			t.Errorf("link in a directory of mode %v: untrusted %v, want %v", tc.mode, got, tc.want)
		}
	}
	if os.Geteuid() == 0 {
		dir := t.TempDir()
		l := filepath.Join(dir, "l")
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(l, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if !untrustedLink(l) {
			t.Error("a link another user owns was trusted")
		}
	}
}

// TestGrantedRootsUnreadable: a record that exists but cannot be read
// refuses the call instead of forgetting what was granted.
func TestGrantedRootsUnreadable(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	t.Setenv(paths.EnvStateDir, state)
	if err := os.MkdirAll(filepath.Join(state, grantedFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := recordGranted([]string{"/x"}); err == nil {
		t.Error("recording into a directory in place of the record succeeded")
	}
	if _, err := grantedRoots(); err == nil {
		t.Error("a directory in place of the record was taken for none")
	}
	if err := os.Remove(filepath.Join(state, grantedFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, grantedFile), []byte("/x\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		t.Skip("root reads a mode-000 file")
	}
	if _, err := grantedRoots(); err == nil {
		t.Error("an unreadable record was taken for none")
	}
}
