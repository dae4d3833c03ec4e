package staterecord

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

// TestMarks: a key added through one Marks is there for another opened on
// the same state directory (another process), others are not; the set's
// directory is private; an unreadable set answers yes.
func TestMarks(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	t.Setenv(paths.EnvStateDir, state)
	a, ok := OpenMarks("injected")
	if !ok {
		t.Fatal("no state directory")
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("OpenMarks created the state directory (%v)", err)
	}
	if a.Has("k1") {
		t.Error("Has(k1) before any Add")
	}
	if err := a.Add("k1"); err != nil {
		t.Fatal(err)
	}
	if err := a.Add("k1"); err != nil {
		t.Fatalf("a second Add: %v", err)
	}
	b, _ := OpenMarks("injected")
	if !b.Has("k1") || b.Has("k2") || b.Has("k1\x00") {
		t.Errorf("another Marks: Has(k1)=%v Has(k2)=%v Has(k1\\x00)=%v, want true false false", b.Has("k1"), b.Has("k2"), b.Has("k1\x00"))
	}
	fi, err := os.Stat(filepath.Join(state, "injected"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the set's directory: %v %v, want mode 0700", fi, err)
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(filepath.Join(state, "injected"), 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(filepath.Join(state, "injected"), 0o700)
		if !b.Has("k2") {
			t.Error("Has(k2) on a set it cannot read: false, want true (the safe side)")
		}
	}
}
