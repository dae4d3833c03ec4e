//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIdmappedTreeRefusesLinks: a root caller's writable root is cloned
// from a descriptor opened without following links, so a directory
// swapped for a link after the plan's checks is refused, not followed to
// the link's target.
func TestIdmappedTreeRefusesLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("idmapped mounts are made for root callers only")
	}
	dir := hostTempDir(t)
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{filepath.Join(dir, "link"), filepath.Join(dir, "parent")} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(target, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	var cache idmapCache
	nsFor := func(k idmapKey) (int, error) { return cache.userns(k) }
	f, err := idmappedTree(target, false, nsFor)
	if err != nil {
		t.Fatalf("control: the directory itself: %v", err)
	}
	f.Close()
	for _, p := range []string{filepath.Join(dir, "link"), filepath.Join(dir, "parent", "sub")} {
		if f, err := idmappedTree(p, false, nsFor); err == nil {
			f.Close()
			t.Errorf("%s: cloned through a symbolic link", p)
		}
	}
}
