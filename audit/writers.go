package audit

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
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

// ErrUnsafeLocation refuses a log whose file or directories another user
// could read, replace or remove: one who owns the log's directory (or one
// of its parents, or shares the right to write it) could read every entry,
// or delete the log and so stop every later run until an operator rotates
// it.
var ErrUnsafeLocation = errors.New("audit: unsafe log location")

// openWritersLock opens (creating it) the writers' lock of the log at path,
// beside it: in path's directory with symlinks resolved (canonicalPath), so
// that every route to one log names the same lock. It refuses a symlink or
// anything but a regular file.
func openWritersLock(path string) (*os.File, error) {
	abs, err := canonicalPath(path)
	if err != nil {
		return nil, err
	}
	return openRegular(abs+WritersLockSuffix, os.O_RDONLY|os.O_CREATE, 0o600, "a lock file")
}

// writersWait bounds how long claimWriters waits while the writers' lock is
// held exclusively, and writersWarn when it says that it waits. A rotation
// holds the lock while it verifies the log (about 5 s per million entries
// on a small machine); anyone who can open the lock file can hold it too,
// and would otherwise make every writer of the log hang.
var (
	writersWait = 30 * time.Second
	writersWarn = 2 * time.Second
)

// writersPoll is the longest claimWriters waits before it tries the lock
// again.
const writersPoll = 50 * time.Millisecond

// besideWait bounds how long a writer waits for the lock of the
// checkpoints beside the log, which anyone who can open that file may
// hold: the state directory's copy, which only the user can reach, is the
// one that counts.
var besideWait = 2 * time.Second

// lockWithin takes an exclusive flock(2) on f, waiting at most limit: a
// file others can open can be locked by them for ever, and a writer must
// not hang behind them. what names the file in the error.
func lockWithin(f *os.File, limit time.Duration, what string) error {
	pause := time.Millisecond
	for start := time.Now(); ; {
		ok, err := tryLockFile(f)
		if err != nil {
			return fmt.Errorf("audit: lock %s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Since(start) >= limit {
			return fmt.Errorf("audit: %s stayed locked for %v by another process (see /proc/locks); end the process holding it", what, limit)
		}
		time.Sleep(pause)
		pause = min(2*pause, writersPoll)
	}
}

// claimWriters takes a hold on the writers' lock of the log at path. When
// no other writer holds it, the hold is exclusive and alone is true, until
// shareWriters makes it shared; otherwise it is shared, waiting while a
// Rotate holds the lock, for at most writersWait (it tells log when it has
// waited writersWarn). Close the file to let go.
func claimWriters(path string, log *slog.Logger) (f *os.File, alone bool, err error) {
	f, err = openWritersLock(path)
	if err != nil {
		return nil, false, err
	}
	if ok, err := tryLockFile(f); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("audit: lock %s: %w", f.Name(), err)
	} else if ok {
		return f, true, nil
	}
	start := time.Now()
	warned := false
	// Another writer holds the lock alone only while it opens the log
	// (about a millisecond); a Rotate holds it for seconds.
	pause := time.Millisecond
	for {
		ok, err := tryLockShared(f)
		if err != nil {
			f.Close()
			return nil, false, fmt.Errorf("audit: lock %s: %w", f.Name(), err)
		}
		if ok {
			return f, false, nil
		}
		waited := time.Since(start)
		if waited >= writersWait {
			f.Close()
			return nil, false, fmt.Errorf("audit: %s stayed locked exclusively for %v, by a rotation of %s still running (agentbox audit rotate) or by another process; retry once the rotation has finished, or end the process holding the lock (see /proc/locks)",
				f.Name(), writersWait, path)
		}
		if !warned && waited >= writersWarn {
			warned = true
			log.Warn("audit: waiting for the writers' lock, held exclusively (a rotation?)", "lock", f.Name(), "limit", writersWait)
		}
		time.Sleep(pause)
		pause = min(2*pause, writersPoll)
	}
}

// shareWriters turns the exclusive hold claimWriters took on writers into
// a shared one, letting other writers in. Linux converts a flock(2) lock
// in one step; where a system lets go first, a Rotate could move the log
// in between, so the log opened as log must still be the one at path.
func shareWriters(writers, log *os.File, path string) error {
	if err := lockShared(writers); err != nil {
		return fmt.Errorf("audit: lock %s: %w", writers.Name(), err)
	}
	opened, err := log.Stat()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	now, err := os.Lstat(path)
	if err != nil || !os.SameFile(opened, now) {
		return fmt.Errorf("audit: %s was moved while it was being opened (by agentbox audit rotate?); open it again", path)
	}
	return nil
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
