//go:build linux

package main

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"filesetattr": probeFileSetattr,
		"setflags":    probeSetFlags,
		"statmode":    probeStatMode,
	})
}

// fsNodumpFlag is FS_NODUMP_FL (FS_IOC_SETFLAGS), fsXflagNodump
// FS_XFLAG_NODUMP (file_setattr): "leave this file out of backups", a flag
// a file's owner may set without privilege.
const (
	fsNodumpFlag  = 0x00000040
	fsXflagNodump = 0x00000080
)

// fileAttr is struct file_attr (linux/fs.h, FILE_ATTR_SIZE_VER0).
type fileAttr struct {
	xflags    uint64
	extsize   uint32
	nextents  uint32
	projid    uint32
	cowextsiz uint32
}

// probeFileSetattr sets FS_XFLAG_NODUMP on PATH with file_setattr(2)
// (Linux 6.17), which changes a file's attributes by path, with no
// descriptor open for writing.
func probeFileSetattr(p string) (string, error) {
	var fa fileAttr
	cwd := unix.AT_FDCWD // a variable: the constant is negative
	if _, _, e := unix.Syscall6(unix.SYS_FILE_GETATTR, uintptr(cwd), cstr(p),
		uintptr(unsafe.Pointer(&fa)), unsafe.Sizeof(fa), 0, 0); e != 0 {
		return "file_getattr", e
	}
	fa.xflags |= fsXflagNodump
	if _, _, e := unix.Syscall6(unix.SYS_FILE_SETATTR, uintptr(cwd), cstr(p),
		uintptr(unsafe.Pointer(&fa)), unsafe.Sizeof(fa), 0, 0); e != 0 {
		return "file_setattr", e
	}
	return fmt.Sprintf("xflags now %#x", fa.xflags), nil
}

// probeSetFlags sets FS_NODUMP_FL on PATH through FS_IOC_SETFLAGS on a
// descriptor opened read-only.
func probeSetFlags(p string) (string, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return "open", err
	}
	defer unix.Close(fd)
	var flags int32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.FS_IOC_GETFLAGS, uintptr(unsafe.Pointer(&flags))); e != 0 {
		return "FS_IOC_GETFLAGS", e
	}
	flags |= fsNodumpFlag
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.FS_IOC_SETFLAGS, uintptr(unsafe.Pointer(&flags))); e != 0 {
		return "FS_IOC_SETFLAGS", e
	}
	return fmt.Sprintf("flags now %#x", flags), nil
}

// probeStatMode reports PATH's mode (lstat): a control that the path is
// reachable.
func probeStatMode(p string) (string, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("mode %#o", st.Mode&0o7777), nil
}
