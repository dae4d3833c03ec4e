//go:build !unix

package agentbox

import (
	"os"
	"os/exec"
)

// relayed: no sandbox runs here (see MaybeSandboxInit), so no file
// needs relaying.
func relayed(*os.File) *os.File { return nil }

// isSocket: see relayed.
func isSocket(*os.File) bool { return false }

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
