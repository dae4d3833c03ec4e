package paths

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestResolve: the directories entered include those that hold a link on
// the way, ".." after a link climbs from where it leads, and a loop ends
// after the kernel's 40 links with an error.
func TestResolve(t *testing.T) {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"a/real/inner", "b"} {
		if err := os.MkdirAll(filepath.Join(d, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, dest := range map[string]string{
		"b/hop":   "../a/real/inner", // held in b
		"logs":    "b/hop/..",        // the kernel: a/real
		"loop":    "loop2",
		"loop2":   "loop",
		"missing": "nowhere/x",
	} {
		if err := os.Symlink(dest, filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Resolve(d + "/logs")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(d, "a/real"); r.Target != want {
		t.Errorf("Target %s, want %s", r.Target, want)
	}
	if want := []string{filepath.Join(d, "logs"), filepath.Join(d, "b/hop")}; !slices.Equal(r.Links, want) {
		t.Errorf("Links %v, want %v", r.Links, want)
	}
	if !slices.Contains(r.Dirs, filepath.Join(d, "b")) {
		t.Errorf("Dirs %v lack %s, which holds a link on the way", r.Dirs, filepath.Join(d, "b"))
	}
	if r, err := Resolve(d + "/missing"); err != nil || r.Target != filepath.Join(d, "nowhere/x") {
		t.Errorf("a link to a missing path: %+v, %v", r, err)
	}
	if r, err := Resolve(d + "/loop"); err == nil || len(r.Links) != 40 {
		t.Errorf("a loop: %d links, %v; want 40 and an error", len(r.Links), err)
	}
}
