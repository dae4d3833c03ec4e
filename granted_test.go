package agentbox

import (
	"fmt"
	"os"
	"path/filepath"
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
		{[]string{"relative", "/with\nnewline"}, []string{kept, "/gone/a", "/gone/b"}},
	}
	for i, st := range steps {
		if err := recordGranted(st.add); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, err := grantedRoots(); err != nil || !slices.Equal(got, st.want) {
			t.Fatalf("step %d: got %q, %v; want %q", i, got, err, st.want)
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
	if !slices.Contains(got, kept) || len(got) > 2 {
		t.Fatalf("after pruning: %d entries (%q...); want %s and at most the newest", len(got), got[:min(3, len(got))], kept)
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
