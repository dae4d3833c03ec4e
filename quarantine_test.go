package agentbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuarantineNameTaken: a name a command took first (a non-empty
// directory NAME.agentbox-quarantine) does not make the rename fail.
func TestQuarantineNameTaken(t *testing.T) {
	w := t.TempDir()
	g := filepath.Join(w, "libs")
	for _, d := range []string{g, g + quarantineSuffix + "/x"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	to, err := quarantine(w, g)
	if err != nil {
		t.Fatal(err)
	}
	if to == "libs"+quarantineSuffix || !strings.HasSuffix(to, quarantineSuffix) {
		t.Errorf("renamed to %q, want a new name ending in %s", to, quarantineSuffix)
	}
	if _, err := os.Lstat(g); err == nil {
		t.Errorf("%s is still in place", g)
	}
	if _, err := os.Lstat(filepath.Join(w, to)); err != nil {
		t.Errorf("not renamed to %s: %v", to, err)
	}
}
