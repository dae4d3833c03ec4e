package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// lockSuffix names the lock file next to the vault file.
const lockSuffix = ".lock"

// LockPath is the lock file kept beside the vault at path: whoever may
// replace it (an agent whose writable root holds the vault) could break
// the lock, so it is as secret as the vault.
func LockPath(path string) string { return path + lockSuffix }

// withLock runs fn while holding the exclusive lock of the vault at path. It
// polls a non-blocking lock so that a stuck holder produces ErrLocked after
// timeout instead of a hang.
func withLock(path string, timeout time.Duration, fn func() error) error {
	lf, err := openLock(LockPath(path))
	if err != nil {
		return err
	}
	defer lf.Close()
	lp := lf.Name()
	deadline := time.Now().Add(timeout)
	delay := 500 * time.Microsecond
	for {
		ok, err := tryLock(lf)
		if err != nil {
			return fmt.Errorf("vault: lock %s: %w", lp, err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return lockTimeoutError(lp, timeout)
		}
		time.Sleep(delay)
		delay = min(2*delay, 20*time.Millisecond)
	}
	defer unlockFile(lf)
	return fn()
}

// openLock opens (or creates) the lock file at lp. It never follows a
// symbolic link nor waits on a FIFO someone planted there (the vault may sit
// in a directory an agent can write): opening through a link would create
// or open any file the link names, as the operator. Anything but a plain
// file with no other name is refused, with what to do.
func openLock(lp string) (*os.File, error) {
	lf, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE|openNoFollow, 0o600)
	if err != nil {
		if isSymlinkErr(err) {
			return nil, fmt.Errorf("vault: lock %s is a symbolic link, which the vault never follows; remove it", lp)
		}
		return nil, fmt.Errorf("vault: lock: %w", err)
	}
	fi, err := lf.Stat()
	if err == nil && (!fi.Mode().IsRegular() || linkCount(fi) > 1) {
		err = fmt.Errorf("vault: lock %s is not a plain file of its own (%s, %d names); remove it", lp, fi.Mode().Type(), linkCount(fi))
	}
	if err != nil {
		lf.Close()
		return nil, err
	}
	return lf, nil
}

// writeFile writes f to path atomically: a temporary file in the same
// directory (mode 0600), fsync, rename over path, fsync of the directory.
// A crash leaves either the old or the new vault, never a mix. The caller
// holds the lock.
func writeFile(path string, f *file) error {
	data, err := f.encode()
	if err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	removeStaleTemps(dir, base)
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("vault: write: %w", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("vault: write: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("vault: write: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("vault: write: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("vault: write: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		done = true
		return fmt.Errorf("vault: write: %w", err)
	}
	done = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("vault: write: sync directory: %w", err)
	}
	return nil
}

// removeStaleTemps deletes temporary files left by a writer that crashed
// between create and rename. Only lock holders create them, and the caller
// holds the lock, so none of them is in use.
func removeStaleTemps(dir, base string) {
	matches, err := filepath.Glob(filepath.Join(dir, "."+base+".*.tmp"))
	if err != nil {
		return
	}
	for _, m := range matches {
		_ = os.Remove(m)
	}
}
