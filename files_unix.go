//go:build unix

package agentbox

import (
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// relayed returns a copy of the caller's f for agentbox to relay through
// a pipe of its own, nil when f goes to the program as it is (terminals,
// FIFOs, files). It relays
//
//   - a socket, for every caller: a socket belongs to the network
//     namespace it was made in, and the program could disconnect it and
//     connect it anywhere the host can reach, or send from it to any
//     address, whatever its own network mode;
//   - an anonymous pipe when the caller is root (the sandbox runs as
//     nobody): its modes are its creator's, and it may carry other
//     processes' bytes.
//
// The copy lets the caller close f after Start, as with os/exec.
func relayed(f *os.File) *os.File {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var dup *os.File
	_ = rc.Control(func(fd uintptr) {
		link, _ := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
		if !strings.HasPrefix(link, "socket:") && !(os.Geteuid() == 0 && strings.HasPrefix(link, "pipe:")) {
			return
		}
		if nfd, err := syscall.Dup(int(fd)); err == nil {
			syscall.CloseOnExec(nfd)
			dup = os.NewFile(uintptr(nfd), f.Name())
		}
	})
	return dup
}

// isSocket reports whether f is a socket.
func isSocket(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeSocket != 0
}

// readNoFollow reads the file p, refusing a symbolic link.
func readNoFollow(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// lockFile takes an advisory lock on the whole of f (exclusive or shared),
// released when f is closed.
func lockFile(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
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
