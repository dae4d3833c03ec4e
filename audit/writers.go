package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WritersLockSuffix is appended to a log's path to name the file its
// writers hold a shared flock(2) on for as long as they have the log open
// (from Open to Close). Rotate takes it exclusively, without waiting, and
// refuses a log a writer holds: the writer would go on appending to the
// moved file. The lock belongs to the path, not to one log: it stays when
// Rotate moves the log away.
const WritersLockSuffix = ".lock"

// ErrLogInUse reports a log that Rotate refuses to move because a writer
// has it open.
var ErrLogInUse = errors.New("audit: log in use")

// openWritersLock opens (creating it) the writers' lock of the log at path,
// beside it: path's directory with symlinks resolved, so that every route to
// one log names the same lock. It refuses a symlink or anything but a
// regular file.
func openWritersLock(path string) (*os.File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	lp := filepath.Join(dir, filepath.Base(abs)+WritersLockSuffix)
	f, err := os.OpenFile(lp, os.O_RDONLY|os.O_CREATE|openNoFollow, 0o600)
	if isSymlinkErr(err) {
		return nil, fmt.Errorf("audit: %s is a symbolic link; refusing to lock through it", lp)
	}
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("audit: %s is not a regular file", lp)
	}
	return f, nil
}

// holdWriters takes a shared hold on the writers' lock of the log at path,
// waiting while a Rotate holds it. Close the file to let go.
func holdWriters(path string) (*os.File, error) {
	f, err := openWritersLock(path)
	if err != nil {
		return nil, err
	}
	if err := lockShared(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: lock %s: %w", f.Name(), err)
	}
	return f, nil
}

// excludeWriters takes the writers' lock of the log at path exclusively,
// or fails with ErrLogInUse when a writer holds it. Close the file to let
// go.
func excludeWriters(path string) (*os.File, error) {
	f, err := openWritersLock(path)
	if err != nil {
		return nil, err
	}
	ok, err := tryLockFile(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: lock %s: %w", f.Name(), err)
	}
	if !ok {
		f.Close()
		return nil, fmt.Errorf("%w: a writer has %s open (an agent that agentbox run started, see agentbox ps, or a program using the audit package) and would go on writing to the moved file; rotate it after the writer closes it",
			ErrLogInUse, path)
	}
	return f, nil
}
