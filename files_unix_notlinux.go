//go:build unix && !linux

package agentbox

import (
	"os"
	"os/exec"
	"syscall"
)

// openRegular opens p for reading without blocking, if it is a regular
// file when looked at first (no sandbox runs here to swap it meanwhile):
// a device's open may act, and is not made.
func openRegular(p string, follow bool) (*os.File, error) {
	stat, flags := os.Lstat, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC
	if follow {
		stat, flags = os.Stat, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC
	}
	fi, err := stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: p, Err: errNotRegular}
	}
	return os.OpenFile(p, flags, 0)
}

// birthTime: not used outside Linux; identities are device and inode.
func birthTime(string) int64 { return 0 }

// checkProcAttr: no sandbox runs here (see MaybeSandboxInit).
func checkProcAttr(string, *exec.Cmd) error { return nil }

// reopenWriter: without /proc the caller's descriptor is copied.
func reopenWriter(*os.File) *os.File { return nil }

// pseudoFileSystem: the pseudo file systems named are Linux's.
func pseudoFileSystem(*os.File) (string, bool) { return "", false }
