//go:build !linux

package dirlist

import (
	"errors"
	"os"
)

// openDir refuses to list: which file systems here compare names byte for
// byte is not known (APFS and NTFS ignore case by default), so each name
// is looked up (see exactNames on Linux).
func openDir(string) (*os.File, error) {
	return nil, errors.New("listings are not used on this platform")
}
