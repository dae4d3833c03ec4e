package paths

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestMkdirAllMade(t *testing.T) {
	base := t.TempDir()
	deep := filepath.Join(base, "a", "b", "c")
	made, err := MkdirAll(deep, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	want := Made{filepath.Join(base, "a"), filepath.Join(base, "a", "b"), deep}
	if !slices.Equal(made, want) {
		t.Fatalf("made %q, want %q", made, want)
	}
	again, err := MkdirAll(deep, 0o700)
	if err != nil || len(again) != 0 {
		t.Fatalf("second MkdirAll made %q, %v; want nothing", again, err)
	}

	// Something put in a made directory since keeps it and its parents.
	keep := filepath.Join(base, "a", "b", "kept")
	if err := os.WriteFile(keep, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	made.Remove()
	if _, err := os.Stat(deep); !os.IsNotExist(err) {
		t.Errorf("%s still there after Remove: %v", deep, err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("Remove took a directory that held a file: %v", err)
	}
	os.Remove(keep)
	made.Remove()
	if _, err := os.Stat(filepath.Join(base, "a")); !os.IsNotExist(err) {
		t.Errorf("%s still there after Remove: %v", filepath.Join(base, "a"), err)
	}
	if _, err := os.Stat(base); err != nil {
		t.Errorf("Remove took the directory that was there before: %v", err)
	}
}

func TestMkdirAllFailureLeavesNothing(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "a", "file")
	if err := os.Mkdir(filepath.Join(base, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := MkdirAll(filepath.Join(file, "x", "y"), 0o700); err == nil {
		t.Fatal("MkdirAll under a file succeeded")
	}
	if made, err := MkdirAll(filepath.Join(base, "n", "m"), 0o700); err != nil || len(made) != 2 {
		t.Fatalf("control: made %q, %v", made, err)
	}
}
