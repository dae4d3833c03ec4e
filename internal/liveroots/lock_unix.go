//go:build unix

package liveroots

import (
	"os"
	"syscall"
)

// lockEntry takes f's flock: exclusive, waiting (the holder's, on a file
// of its own), or shared without waiting (a reader's: it succeeds only on
// an entry nobody holds).
func lockEntry(f *os.File, hold bool) error {
	how := syscall.LOCK_SH | syscall.LOCK_NB
	if hold {
		how = syscall.LOCK_EX
	}
	for {
		if err := syscall.Flock(int(f.Fd()), how); err != syscall.EINTR {
			return err
		}
	}
}
