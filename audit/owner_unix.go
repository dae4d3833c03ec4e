//go:build unix

package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkLocation judges the log at path before it is opened: its directory
// must be the caller's (or root's) and writable by no one else, every
// directory above it too, except that a sticky one (/tmp) may be writable
// by others (they cannot rename what is not theirs there); an existing log
// must be the caller's and writable by no one else.
func checkLocation(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	me := os.Geteuid()
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist), err == nil && fi.Mode()&fs.ModeSymlink != 0:
		// Made by Open, or a link that openRegular refuses.
	case err != nil:
		return fmt.Errorf("audit: %w", err)
	default:
		if uid, ok := fileOwner(fi); ok && uid != me {
			return fmt.Errorf("%w: %s belongs to uid %d, not to this user (%d): move it away or choose another audit.log_path", ErrUnsafeLocation, abs, uid, me)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("%w: %s is writable by group or others (mode %v): run chmod go-w %s", ErrUnsafeLocation, abs, fi.Mode().Perm(), abs)
		}
	}
	for dir, leaf := filepath.Dir(abs), true; ; dir, leaf = filepath.Dir(dir), false {
		fi, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		uid, ok := fileOwner(fi)
		switch {
		case ok && uid != me && uid != 0:
			return fmt.Errorf("%w: the log's directory %s belongs to uid %d: choose an audit.log_path in a directory of this user's", ErrUnsafeLocation, dir, uid)
		case fi.Mode().Perm()&0o022 != 0 && (leaf || fi.Mode()&fs.ModeSticky == 0):
			return fmt.Errorf("%w: the log's directory %s is writable by others (mode %v): choose an audit.log_path in a directory only this user can write", ErrUnsafeLocation, dir, fi.Mode())
		}
		if dir == "/" || dir == filepath.Dir(dir) {
			return nil
		}
	}
}
