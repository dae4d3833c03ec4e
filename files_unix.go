//go:build unix

package agentbox

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// readNoFollow reads the file p, refusing a symbolic link, without
// blocking, if it is a small regular file (openRegular, readBounded).
func readNoFollow(p string) ([]byte, error) {
	return readOpened(openRegular(p, false))
}

// readFollow is readNoFollow following symbolic links, as git does for
// the files it reads: a gitlink file, a commondir, a config.
func readFollow(p string) ([]byte, error) {
	return readOpened(openRegular(p, true))
}

// readOpened reads f, just opened, with readBounded.
func readOpened(f *os.File, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return readBounded(f)
}

// idOf returns the identity of the file at p (the link itself, if p is
// one): device, inode and, where the file system keeps it, birth time, so
// that an inode number reused by a later file is another identity.
func idOf(p string) (fileID, bool) {
	var st syscall.Stat_t
	if syscall.Lstat(p, &st) != nil {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino), born: birthTime(p)}, true
}

// untrustedLink reports whether someone other than the caller and root
// could have made the link at q or put it there: the link or its directory
// belongs to another user, or others may write the directory without the
// sticky bit (which keeps them from replacing what is not theirs), as the
// kernel's protected_symlinks judges links in shared directories. One that
// cannot be checked counts as untrusted.
func untrustedLink(q string) bool {
	uid := uint32(os.Geteuid())
	trusted := func(owner uint32) bool { return owner == 0 || owner == uid }
	var link, dir syscall.Stat_t
	if syscall.Lstat(q, &link) != nil || syscall.Stat(filepath.Dir(q), &dir) != nil {
		return true
	}
	if !trusted(link.Uid) || !trusted(dir.Uid) {
		return true
	}
	if dir.Mode&syscall.S_ISVTX != 0 {
		return false
	}
	return dir.Mode&0o002 != 0 || dir.Mode&0o020 != 0 && dir.Gid != 0 && !ownGroup(dir.Gid)
}

// ownGroup reports whether gid is the caller's personal group (the
// user-private-group scheme: the group named as the user, whose members
// are the user alone), whose write permission gives no one else anything.
func ownGroup(gid uint32) bool {
	if gid != uint32(os.Getegid()) {
		return false
	}
	u, err := user.Current()
	if err != nil {
		return false
	}
	g, err := user.LookupGroupId(strconv.FormatUint(uint64(gid), 10))
	return err == nil && g.Name == u.Username
}
