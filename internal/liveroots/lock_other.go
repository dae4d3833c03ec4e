//go:build !unix

package liveroots

import (
	"errors"
	"os"
)

// lockEntry: no flock here; no entry is made, and none is taken for stale.
func lockEntry(*os.File, bool) error { return errors.ErrUnsupported }
