//go:build !linux

package agentbox

import (
	"os"
	"path/filepath"
)

// scanAccess: no sandbox runs here, and directories a scan cannot list are
// reported as they are.
type scanAccess struct{ root string }

// grant changes nothing here.
func (*scanAccess) grant(string) error { return nil }

// restore: see grant.
func (*scanAccess) restore() {}

// list lists dir.
func (*scanAccess) list(dir string) ([]os.DirEntry, error) { return os.ReadDir(dir) }

// quarantine renames the repository gitPath inside the writable root w
// through an os.Root.
func quarantine(w, gitPath string) error {
	rel, err := filepath.Rel(w, gitPath)
	if err != nil {
		return err
	}
	r, err := os.OpenRoot(w)
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Rename(rel, rel+quarantineSuffix)
}
