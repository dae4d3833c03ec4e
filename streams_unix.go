//go:build unix

package agentbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// streamOf says what kind of stream a file the caller hands the program
// is, and refuses what is no stream (see streamKind).
func streamOf(f *os.File) (streamKind, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var st unix.Stat_t
	var link string
	var statErr error
	if err := rc.Control(func(fd uintptr) {
		statErr = unix.Fstat(int(fd), &st)
		link, _ = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
	}); err != nil {
		return 0, err
	}
	if statErr != nil {
		return 0, statErr
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFCHR:
		return streamDevice, nil
	case unix.S_IFIFO:
		if strings.HasPrefix(link, "pipe:") {
			return streamPipe, nil
		}
		return streamFIFO, nil
	case unix.S_IFSOCK:
		return streamSocket, nil
	case unix.S_IFREG:
		return streamFile, nil
	}
	return 0, fmt.Errorf("%s is %s, not a stream: pass a file, a pipe or a terminal", f.Name(), fileKind(uint32(st.Mode)))
}

// dupCloexec duplicates fd as a new *os.File named name.
func dupCloexec(fd uintptr, name string) (*os.File, error) {
	nfd, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(nfd), name), nil
}

// fileKind names the kind of file of a stat mode.
func fileKind(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "an anonymous inode"
}
