//go:build linux

package paths

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveViaProc: a link that leads through /proc's own links is
// marked, since where it leads depends on who follows it; a plain link is
// not (the control).
func TestResolveViaProc(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for link, dest := range map[string]string{
		"cwd":    "/proc/self/cwd/payload",
		"thread": "/proc/thread-self/cwd",
		"plain":  "payload",
	} {
		if err := os.Symlink(dest, filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		via  bool
	}{{"cwd", true}, {"thread", true}, {"plain", false}} {
		r, err := Resolve(filepath.Join(d, tc.name))
		if err != nil || r.ViaProc != tc.via {
			t.Errorf("%s: ViaProc %v (%v), want %v", tc.name, r.ViaProc, err, tc.via)
		}
	}
}
