//go:build unix

package audit

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow makes opening a symlink fail: a log or checkpoint file is
// never written through a link someone else may have planted.
const openNoFollow = syscall.O_NOFOLLOW

// Exclusive locks are taken with tryLockFile (lockWithin waits for them,
// bounded). flock locks belong to the open file description, so two Logs
// on one path exclude each other even inside one process.

// lockShared takes a shared flock(2) on f, waiting for it; it turns an
// exclusive lock f holds into a shared one.
func lockShared(f *os.File) error { return flock(f, syscall.LOCK_SH) }

// tryLockShared takes a shared flock(2) on f without waiting; it reports
// false when another open file description holds an exclusive lock on the
// file.
func tryLockShared(f *os.File) (bool, error) {
	err := flock(f, syscall.LOCK_SH|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// tryLockFile takes an exclusive flock(2) on f without waiting; it reports
// false when another open file description holds a lock on the file.
func tryLockFile(f *os.File) (bool, error) {
	err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// fileOwner returns the uid owning the file fi describes.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// isSymlinkErr reports whether err is what opening a symlink with
// openNoFollow fails with.
func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }

// openNonBlock keeps opening a FIFO from waiting for its other end.
const openNonBlock = syscall.O_NONBLOCK
