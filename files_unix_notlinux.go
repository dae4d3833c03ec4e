//go:build unix && !linux

package agentbox

import (
	"os"
	"os/exec"
)

// birthTime: not used outside Linux; identities are device and inode.
func birthTime(string) int64 { return 0 }

// checkProcAttr: no sandbox runs here (see MaybeSandboxInit).
func checkProcAttr(string, *exec.Cmd) error { return nil }

// reopenWriter: without /proc the caller's descriptor is copied.
func reopenWriter(*os.File) *os.File { return nil }
