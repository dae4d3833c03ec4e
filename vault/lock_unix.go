//go:build unix

package vault

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow makes opening a symbolic link fail, and opening a FIFO
// return at once.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// openNonBlock makes opening a FIFO return at once.
const openNonBlock = syscall.O_NONBLOCK

// isSymlinkErr reports whether err is what opening a symbolic link with
// openNoFollow fails with.
func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }

// linkCount is the number of names the file fi describes has.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// tryLock takes an exclusive flock on f without blocking. flock locks belong
// to the open file description, so two opens in one process exclude each
// other as well as two processes do.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EINTR):
		return false, nil
	}
	return false, err
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// syncDir flushes a directory entry change (the rename) to disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
