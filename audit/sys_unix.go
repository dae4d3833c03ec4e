//go:build unix

package audit

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock(2) on f, waiting for it. flock locks
// belong to the open file description, so two Logs on one path exclude each
// other even inside one process.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
