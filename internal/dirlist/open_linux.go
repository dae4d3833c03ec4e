//go:build linux

package dirlist

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openDir opens the directory p to list it, refusing anything else
// without blocking: a FIFO a command left where a directory was expected
// would hold an open for reading until a writer came (red-team round 58).
// It refuses, too, a directory whose lookups may find names its listing
// does not have (exactNames).
func openDir(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if err := exactNames(int(f.Fd())); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// errInexact refuses to list a directory whose listing cannot answer
// lookups.
var errInexact = errors.New("lookups here may find names the listing does not have")

// fsCasefoldFL is FS_CASEFOLD_FL: the directory's lookups ignore case.
const fsCasefoldFL = 0x40000000

// exactNames reports (nil) whether a lookup in the directory of fd finds
// exactly the names its listing has: a file system known to compare names
// byte for byte, in a directory not made case-insensitive. Elsewhere a
// deny path spelled in another case than the file on disk (vfat, exFAT,
// ext4 or tmpfs casefold, ciopfs and other FUSE file systems, SMB) would
// be missing from the listing and found by every lookup, and be left
// unmasked (red-team round 63): each name is looked up instead.
func exactNames(fd int) error {
	var st unix.Statfs_t
	if err := unix.Fstatfs(fd, &st); err != nil {
		return err
	}
	switch uint32(st.Type) {
	case unix.BTRFS_SUPER_MAGIC:
		return nil // no case-insensitive directories
	case unix.EXT4_SUPER_MAGIC, unix.TMPFS_MAGIC:
		flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
		switch {
		case errors.Is(err, unix.ENOTTY) && uint32(st.Type) == unix.TMPFS_MAGIC:
			return nil // a tmpfs older than its flags is older than its casefold
		case err != nil:
			return err
		case flags&fsCasefoldFL != 0:
			return errInexact
		}
		return nil
	}
	return errInexact
}
