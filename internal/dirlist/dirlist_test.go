package dirlist

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// listable skips a test whose directory this platform or file system
// does not list (see exactNames).
func listable(t *testing.T, dir string) {
	t.Helper()
	if !Lists(dir) {
		t.Skipf("%s is not listed on this platform or file system", dir)
	}
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	listable(t, dir)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	var c Cache
	// Below listAfter lookups the Cache answers nothing: the caller looks.
	for i := 1; i < listAfter; i++ {
		if _, _, listed := c.Type(dir, "missing"); listed {
			t.Fatalf("lookup %d answered from a listing", i)
		}
	}
	for _, tc := range []struct {
		name   string
		mode   fs.FileMode
		exists bool
	}{
		{"missing", 0, false},
		{"sub", fs.ModeDir, true},
		{"file", 0, true},
		{"link", fs.ModeSymlink, true},
	} {
		mode, exists, listed := c.Type(dir, tc.name)
		if !listed || exists != tc.exists || mode != tc.mode {
			t.Errorf("%s: mode %v exists %v listed %v, want %v %v true", tc.name, mode, exists, listed, tc.mode, tc.exists)
		}
	}
	if !c.Missing(filepath.Join(dir, "missing")) || c.Missing(filepath.Join(dir, "file")) {
		t.Error("Missing disagrees with the listing")
	}
	// Below a missing directory, nothing exists (its own directory is not
	// listed: asked once).
	if !c.Missing(filepath.Join(dir, "missing", "below")) {
		t.Error("a name below a missing directory may exist")
	}
	if c.Missing(filepath.Join(dir, "sub", "x")) || c.Missing(filepath.Join(dir, "file", "x")) {
		t.Error("a name below an existing directory, or below a file, answered without a lookup")
	}
	// A name made after the listing is not seen: the listing is as old as
	// the lookups it replaced (see the package comment).
	if err := os.WriteFile(filepath.Join(dir, "later"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !c.Missing(filepath.Join(dir, "later")) {
		t.Error("the listing was read again")
	}
}
