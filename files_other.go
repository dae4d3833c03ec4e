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

// readNoFollow reads the file p.
func readNoFollow(p string) ([]byte, error) { return os.ReadFile(p) }

// lockFile does nothing here: no sandbox runs on this platform yet.
func lockFile(*os.File, bool) error { return nil }

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
