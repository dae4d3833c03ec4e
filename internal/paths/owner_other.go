//go:build !unix

package paths

import "io/fs"

// owner is unknown where files have no uid.
func owner(fs.FileInfo) (int, bool) { return 0, false }
