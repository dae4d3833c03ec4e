//go:build unix

package staterecord

import (
	"os"
	"syscall"
)

// lock takes an advisory lock on the whole of f, released when f is closed.
func lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		if err := syscall.Flock(int(f.Fd()), how); err != syscall.EINTR {
			return err
		}
	}
}
