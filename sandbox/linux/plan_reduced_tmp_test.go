//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeReducedTmp checks where the reduced tier's private temporary
// directory goes: on a disk under a memory limit, and where no disk is
// offered, in the first place with a degraded note.
func TestMakeReducedTmp(t *testing.T) {
	disk := t.TempDir()
	if isMemoryFS(disk) {
		t.Skip("the test's temporary directory is itself memory")
	}
	if _, err := os.Stat("/dev/shm"); err != nil || !isMemoryFS("/dev/shm") {
		t.Skip("no tmpfs at /dev/shm")
	}
	shm, err := os.MkdirTemp("/dev/shm", "reducedtmp-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	missing := filepath.Join(disk, "missing")
	cases := []struct {
		name     string
		parents  []string
		limited  bool
		want     string // parent the directory must be made in
		degraded bool
	}{
		{"no limit keeps the tmpfs", []string{shm, disk}, false, shm, false},
		{"limit moves to disk", []string{shm, disk}, true, disk, false},
		{"disk first stays", []string{disk, shm}, true, disk, false},
		{"unusable parent skipped", []string{shm, missing, disk}, true, disk, false},
		{"no disk: degraded", []string{shm}, true, shm, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, degraded, err := makeReducedTmp(c.parents, c.limited)
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			if filepath.Dir(dir) != c.want {
				t.Errorf("dir %s, want in %s", dir, c.want)
			}
			if (degraded != "") != c.degraded || (c.degraded && !strings.Contains(degraded, "tmpfs")) {
				t.Errorf("degraded %q, want degraded %v", degraded, c.degraded)
			}
			if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("dir mode %v (%v), want 0700", fi.Mode(), err)
			}
		})
	}
}
