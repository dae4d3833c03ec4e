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

// read reads the file p if it is a small regular file (readNoFollow).
func (*scanAccess) read(p string) ([]byte, error) { return readNoFollow(p) }

// quarantine renames the repository gitPath inside the writable root w
// through an os.Root, to the first of quarantineNames not taken, and
// returns the name given.
func quarantine(w, gitPath string) (string, error) {
	rel, err := filepath.Rel(w, gitPath)
	if err != nil {
		return "", err
	}
	r, err := os.OpenRoot(w)
	if err != nil {
		return "", err
	}
	defer r.Close()
	for _, to := range quarantineNames(filepath.Base(rel)) {
		if _, err = r.Lstat(filepath.Join(filepath.Dir(rel), to)); err == nil {
			continue
		}
		return to, r.Rename(rel, filepath.Join(filepath.Dir(rel), to))
	}
	return "", err
}
