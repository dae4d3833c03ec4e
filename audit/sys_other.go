//go:build !unix

package audit

import (
	"errors"
	"io/fs"
	"os"
)

const openNoFollow = 0

// File locks are not implemented here: appending from several processes
// needs one, and agentbox refuses rather than risk a forked chain.
func unlockFile(*os.File) error { return errors.ErrUnsupported }

func lockShared(*os.File) error { return errors.ErrUnsupported }

func tryLockShared(*os.File) (bool, error) { return false, errors.ErrUnsupported }

func tryLockFile(*os.File) (bool, error) { return false, errors.ErrUnsupported }

func fileOwner(fs.FileInfo) (int, bool) { return 0, false }

func isSymlinkErr(error) bool { return false }

const openNonBlock = 0
