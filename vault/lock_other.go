//go:build !unix && !windows

package vault

import (
	"errors"
	"os"
)

func tryLock(*os.File) (bool, error) {
	return false, errors.New("file locking is not supported on this platform")
}

func unlockFile(*os.File) {}

func syncDir(string) error { return nil }
