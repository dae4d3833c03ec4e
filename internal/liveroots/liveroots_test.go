//go:build unix

package liveroots

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

func TestLiveRoots(t *testing.T) {
	state := t.TempDir()
	t.Setenv(paths.EnvStateDir, state)
	a, err := Add([]string{"/p/one", "/p/two"})
	if err != nil || a == nil {
		t.Fatalf("Add: %v %v", a, err)
	}
	b, err := Add([]string{"/q"})
	if err != nil {
		t.Fatal(err)
	}
	// A sandbox whose agentbox process died: its entry, unlocked.
	stale := filepath.Join(state, dirName, "deadbeef")
	if err := os.WriteFile(stale, []byte("\"/dead\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// One being made: skipped.
	if err := os.WriteFile(filepath.Join(state, dirName, ".cafe"), []byte("\"/making\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Running()
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []string{"/p/one", "/p/two", "/q"}) {
		t.Fatalf("Running() = %q, %v; want the two live sandboxes' roots", got, err)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale entry was not removed: %v", err)
	}
	a.Done()
	if got, _ := Running(); !slices.Equal(got, []string{"/q"}) {
		t.Errorf("after Done: Running() = %q, want [/q]", got)
	}
	b.Done()
	var none *Entry
	none.Done() // a nil entry is done
	if got, _ := Running(); len(got) != 0 {
		t.Errorf("after both: Running() = %q", got)
	}
	if e, err := Add(nil); e != nil || err != nil {
		t.Errorf("Add(nil) = %v, %v; want nothing", e, err)
	}
}

// BenchmarkAddDone is what registering costs a sandbox's start and end.
func BenchmarkAddDone(b *testing.B) {
	b.Setenv(paths.EnvStateDir, b.TempDir())
	for b.Loop() {
		e, err := Add([]string{"/p/one", "/p/two"})
		if err != nil {
			b.Fatal(err)
		}
		e.Done()
	}
}
