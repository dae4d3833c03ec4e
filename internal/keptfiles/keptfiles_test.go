package keptfiles

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentbox-dev/agentbox/internal/paths"
)

func TestRecordLoad(t *testing.T) {
	state := t.TempDir()
	t.Setenv(paths.EnvStateDir, state)
	dir := t.TempDir()
	real := filepath.Join(dir, "pass")
	if err := os.WriteFile(real, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "m.yaml")
	log := filepath.Join(dir, "agent.log")
	if s, p, err := Load(); err != nil || s != nil || p != nil {
		t.Fatalf("Load before any record = %q %q %v, want nothing", s, p, err)
	}
	for _, step := range []struct {
		kind  Kind
		files []string
	}{
		{Secret, []string{link}},           // recorded as the file it leads to
		{Secret, []string{real, "", real}}, // nothing new
		{Policy, []string{manifest}},       // missing: kept as named
		{Log, []string{log}},
	} {
		if err := Record(step.kind, step.files...); err != nil {
			t.Fatalf("Record(%s, %q): %v", step.kind, step.files, err)
		}
	}
	// A line the record does not understand is skipped, not fatal.
	f, err := os.OpenFile(filepath.Join(state, fileName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("bogus line\nsecret \"relative\"\n")
	f.Close()
	s, p, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	if want := []string{filepath.Join(realDir, "pass")}; !slices.Equal(s, want) {
		t.Errorf("secrets %q, want %q", s, want)
	}
	if want := []string{manifest, log}; !slices.Equal(p, want) {
		t.Errorf("read-only %q, want %q", p, want)
	}
	if fi, err := os.Stat(filepath.Join(state, fileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v (%v), want 0600", fi.Mode(), err)
	}
}
