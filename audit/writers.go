package audit

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
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
	return openRegular(lp, os.O_RDONLY|os.O_CREATE, 0o600, "a lock file")
}

// writersWait bounds how long holdWriters waits while the writers' lock is
// held exclusively, and writersWarn when it says that it waits. A rotation
// holds the lock while it verifies the log (about 5 s per million entries
// on a small machine); anyone who can open the lock file can hold it too,
// and would otherwise make every writer of the log hang.
var (
	writersWait = 30 * time.Second
	writersWarn = 2 * time.Second
)

// writersPoll is how often holdWriters tries the lock again.
const writersPoll = 50 * time.Millisecond

// holdWriters takes a shared hold on the writers' lock of the log at path,
// waiting while a Rotate holds it, for at most writersWait; it tells log
// when it has waited writersWarn. Close the file to let go.
func holdWriters(path string, log *slog.Logger) (*os.File, error) {
	f, err := openWritersLock(path)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	warned := false
	for {
		ok, err := tryLockShared(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("audit: lock %s: %w", f.Name(), err)
		}
		if ok {
			return f, nil
		}
		waited := time.Since(start)
		if waited >= writersWait {
			f.Close()
			return nil, fmt.Errorf("audit: %s stayed locked exclusively for %v, by a rotation of %s still running (agentbox audit rotate) or by another process; retry once the rotation has finished, or end the process holding the lock (see /proc/locks)",
				f.Name(), writersWait, path)
		}
		if !warned && waited >= writersWarn {
			warned = true
			log.Warn("audit: waiting for the writers' lock, held exclusively (a rotation?)", "lock", f.Name(), "limit", writersWait)
		}
		time.Sleep(writersPoll)
	}
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
