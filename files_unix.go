//go:build unix

package agentbox

import (
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// relayedPipe returns a copy of the caller's f for agentbox to relay through
// a pipe of its own, when the caller is root (the sandbox runs as nobody)
// and f is an anonymous pipe, whose modes are its creator's and which may
// carry other processes' bytes; nil when f goes to the program as it is
// (terminals, FIFOs, files, and every file of an ordinary caller, whose
// sandbox runs as their owner). The copy lets the caller close f after
// Start, as with os/exec.
func relayedPipe(f *os.File) *os.File {
	if os.Geteuid() != 0 {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var dup *os.File
	_ = rc.Control(func(fd uintptr) {
		link, _ := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
		if !strings.HasPrefix(link, "pipe:") {
			return
		}
		if nfd, err := syscall.Dup(int(fd)); err == nil {
			syscall.CloseOnExec(nfd)
			dup = os.NewFile(uintptr(nfd), f.Name())
		}
	})
	return dup
}

// readNoFollow reads the file p, refusing a symbolic link.
func readNoFollow(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// lockFile takes an advisory lock on the whole of f (exclusive or shared),
// released when f is closed.
func lockFile(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
