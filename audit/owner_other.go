//go:build !unix

package audit

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkLocation: file modes and owners are unix's; elsewhere the log's
// directory is the operator's to choose.
func checkLocation(string) error { return nil }

// locateLog returns the log at path as canonicalPath names it: elsewhere
// than on unix there is no location to judge (see checkLocation).
func locateLog(path string) (string, error) { return canonicalPath(path) }

// canonicalPath returns path made absolute with the links in its
// directory resolved, so that every route to one log names the same
// state-directory copy and the same files beside it. Windows takes ".."
// away from a path before it looks anything up, as filepath.Abs does.
func canonicalPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("audit: %w", err)
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs)), nil
	}
	return abs, nil
}

// checkOpened: see checkLocation.
func checkOpened(string, *os.File) error { return nil }
