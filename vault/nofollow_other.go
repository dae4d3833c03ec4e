//go:build !unix

package vault

import "io/fs"

// openNoFollow is unix's alone; elsewhere the lock's mode is checked after
// the open.
const openNoFollow = 0

// openNonBlock: see openNoFollow.
const openNonBlock = 0

func isSymlinkErr(error) bool { return false }

func linkCount(fs.FileInfo) uint64 { return 1 }
