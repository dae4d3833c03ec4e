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

// dupFD duplicates f's descriptor (close-on-exec), without setting it
// blocking as Fd does: a copy of its own for agentbox, which the caller
// may close its file after Start without taking away.
func dupFD(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	nfd, dupErr := -1, error(nil)
	if err := rc.Control(func(fd uintptr) { nfd, dupErr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	return nfd, dupErr
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

// sameDescription reports whether a and b are open on one open file
// description: kcmp's answer where it gives one, else the same file with
// the same status flags and offset.
func sameDescription(a, b *os.File) bool {
	fa, ok1 := rawFD(a)
	fb, ok2 := rawFD(b)
	if !ok1 || !ok2 {
		return false
	}
	if same, ok := kcmpFile(fa, fb); ok {
		return same
	}
	var sa, sb unix.Stat_t
	if unix.Fstat(fa, &sa) != nil || unix.Fstat(fb, &sb) != nil || sa.Dev != sb.Dev || sa.Ino != sb.Ino {
		return false
	}
	la, err1 := unix.FcntlInt(uintptr(fa), unix.F_GETFL, 0)
	lb, err2 := unix.FcntlInt(uintptr(fb), unix.F_GETFL, 0)
	oa, err3 := unix.Seek(fa, 0, 1)
	ob, err4 := unix.Seek(fb, 0, 1)
	return err1 == nil && err2 == nil && la == lb && (err3 != nil && err4 != nil || err3 == nil && err4 == nil && oa == ob)
}

// rawFD returns f's descriptor without setting it blocking (as Fd does).
func rawFD(f *os.File) (int, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, false
	}
	fd := -1
	if rc.Control(func(u uintptr) { fd = int(u) }) != nil {
		return -1, false
	}
	return fd, true
}
