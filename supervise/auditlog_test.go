package supervise

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// auditLogFiles names the log's own files and every FILE.* beside it (the
// logs `audit rotate` moved to its default name), not the other files.
func TestAuditLogFiles(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "audit.log")
	for _, n := range []string{"audit.log", "audit.log.20250101T000000Z", "audit.log.20250101T000000Z.checkpoints", "audit.logs", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := auditLogFiles(log)
	for _, n := range []string{"audit.log", "audit.log.checkpoints", "audit.log.lock", "audit.log.20250101T000000Z", "audit.log.20250101T000000Z.checkpoints"} {
		if !slices.Contains(got, filepath.Join(dir, n)) {
			t.Errorf("%s not denied: %q", n, got)
		}
	}
	for _, n := range []string{"audit.logs", "notes.txt"} {
		if slices.Contains(got, filepath.Join(dir, n)) {
			t.Errorf("%s denied: %q", n, got)
		}
	}
	if got := auditLogFiles(filepath.Join(dir, "missing", "a.log")); len(got) != 3 {
		t.Errorf("log in a directory not made yet: %q", got)
	}
}
