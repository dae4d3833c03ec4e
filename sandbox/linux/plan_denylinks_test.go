//go:build linux

package linux

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox/sandbox"
)

// TestDenyLinksSought: the other names of the files of a denied directory
// are sought only for the deny paths the caller names (SeekLinks). A deny
// path of the built-in default set (a browser profile of tens of thousands
// of entries, in a home once granted) costs no walk and never refuses the
// plan; the same directory sought, past the walks' bounds, refuses it, and
// within them has its file's other name masked.
func TestDenyLinksSought(t *testing.T) {
	home := filepath.Join(hostTempDir(t), "home")
	profile := filepath.Join(home, ".mozilla")
	if err := os.MkdirAll(profile, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := os.WriteFile(filepath.Join(profile, fmt.Sprint("f", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(home, "notes")
	if err := os.Link(filepath.Join(profile, "f0"), other); err != nil {
		t.Fatal(err)
	}
	defer func(i, l int) { maxInsideWalk, maxLinkWalk = i, l }(maxInsideWalk, maxLinkWalk)
	maxInsideWalk, maxLinkWalk = 3, 5
	fs := sandbox.Filesystem{DenyRead: []string{profile}, Granted: []string{home}}

	pl, err := buildPlan(&sandbox.Spec{Filesystem: fs}, false)
	if err != nil {
		t.Fatalf("a default deny path, not sought: %v", err)
	}
	if _, _, ok := opAt(pl, other); ok {
		t.Errorf("not sought, yet %s is masked", other)
	}
	pl.removePlaceholders()

	fs.SeekLinks = []string{profile}
	if pl, err := buildPlan(&sandbox.Spec{Filesystem: fs}, false); err == nil || !strings.Contains(err.Error(), "other names") {
		if pl != nil {
			pl.removePlaceholders()
		}
		t.Fatalf("sought past the bounds: %v; want the plan refused", err)
	}
	maxInsideWalk, maxLinkWalk = 100, 100
	pl, err = buildPlan(&sandbox.Spec{Filesystem: fs}, false)
	if err != nil {
		t.Fatalf("sought within the bounds: %v", err)
	}
	defer pl.removePlaceholders()
	if op, _, ok := opAt(pl, other); !ok || op.Kind != opMaskFile {
		t.Errorf("sought, but %s is not masked: %+v", other, op)
	}
}
