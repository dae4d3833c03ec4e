//go:build !unix

package agentbox

import (
	"errors"
	"os"
	"os/exec"
)

// streamOf: no sandbox runs here (see MaybeSandboxInit), so every file
// goes as it is.
func streamOf(*os.File) (streamKind, error) { return streamDevice, nil }

// dupFD: see streamOf; nothing is relayed here.
func dupFD(*os.File) (int, error) { return -1, errors.ErrUnsupported }

// readNoFollow reads the file p if it is a small regular file
// (readBounded), refusing a symbolic link.
func readNoFollow(p string) ([]byte, error) {
	if fi, err := os.Lstat(p); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: p, Err: errNotRegular}
	}
	return readFollow(p)
}

// readFollow reads the file p if it is a small regular file.
func readFollow(p string) ([]byte, error) {
	if fi, err := os.Stat(p); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: p, Err: errNotRegular}
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	return readBounded(f)
}

// idOf: no inode numbers are used here.
func idOf(string) (fileID, bool) { return fileID{}, false }

// untrustedLink: no sandbox runs on this platform yet.
func untrustedLink(string) bool { return false }

// checkProcAttr: no sandbox runs here (see MaybeSandboxInit).
func checkProcAttr(string, *exec.Cmd) error { return nil }

// sameDescription: see streamOf.
func sameDescription(*os.File, *os.File) bool { return false }

// reopenWriter: no relay runs on this platform yet.
func reopenWriter(*os.File) *os.File { return nil }

// pseudoFileSystem: the pseudo file systems named are Linux's.
func pseudoFileSystem(*os.File) (string, bool) { return "", false }
