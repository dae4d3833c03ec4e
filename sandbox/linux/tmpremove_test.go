//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveOwnedTree: a tree whose directories the program took its
// owner's permissions off is removed whole, and a link in it to a
// directory elsewhere changes nothing there (its mode, its files). As
// root, permissions hold nothing back and the first removal does it all.
func TestRemoveOwnedTree(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "tmp"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(dir, "keep", "sub"), filepath.Join(dir, "deep", "a", "b"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(dir, "keep", "sub", "f"), filepath.Join(dir, "deep", "a", "b", "g"), filepath.Join(outside, "kept")} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(dir, "deep", "a", "b"), filepath.Join(dir, "deep", "a"), filepath.Join(dir, "keep")} {
		if err := os.Chmod(d, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(outside, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(outside, 0o755) })
	if err := removeOwnedTree(dir); err != nil {
		t.Fatalf("removeOwnedTree: %v", err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", dir, err)
	}
	fi, err := os.Stat(outside)
	if err != nil || fi.Mode().Perm() != 0o500 {
		t.Errorf("the directory a link pointed to: %v, %v; want mode 0500, unchanged", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(outside, "kept")); err != nil {
		t.Errorf("a file of the directory a link pointed to: %v", err)
	}
}
