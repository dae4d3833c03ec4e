//go:build linux

package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Written by every write probe; the suite looks for it on the host.
const writeMarker = "written-by-sandbox"

func init() {
	register(map[string]probeFunc{
		"read":        probeRead,
		"readdir":     probeReaddir,
		"open":        probeOpen,
		"openw":       probeOpenWrite,
		"readlink":    func(p string) (string, error) { return os.Readlink(p) },
		"stat":        probeStat,
		"write":       probeWrite,
		"mkdir":       func(p string) (string, error) { return "", unix.Mkdir(p, 0o755) },
		"unlink":      func(p string) (string, error) { return "", unix.Unlink(p) },
		"truncate":    func(p string) (string, error) { return "", unix.Truncate(p, 0) },
		"utimes":      probeUtimes,
		"mkfifo":      func(p string) (string, error) { return "", unix.Mkfifo(p, 0o644) },
		"mknodchr":    func(p string) (string, error) { return "", unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))) },
		"rename":      probeRename,
		"link":        probeLink,
		"symlink":     probeSymlink,
		"chmod":       probeChmod,
		"chmodlegacy": probeChmodLegacy,
		"chown":       probeChown,
		"creat":       probeCreat,
		"openlegacy":  probeOpenLegacy,
		"creatlegacy": probeCreatLegacy,
		"mknodsuid":   probeMknodSUID,
		"setxattr":    probeSetxattr,
		"setcap":      probeSetcap,
		"fdread":      probeFDRead,
		"opathreopen": probeOPathReopen,
		"waitexist":   probeWaitExist,
		"handle":      probeHandle,
	})
}

// probeRead reads a file; the detail is its content.
func probeRead(p string) (string, error) {
	b, err := readFile(p)
	return string(b), err
}

func readFile(p string) ([]byte, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return readFD(fd)
}

func readFD(fd int) ([]byte, error) {
	var out []byte
	buf := make([]byte, 4096)
	for len(out) < 1<<16 {
		n, err := unix.Pread(fd, buf, int64(len(out)))
		if err == unix.ESPIPE { // a pipe or socket: plain read
			n, err = unix.Read(fd, buf)
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			break
		}
		out = append(out, buf[:n]...)
	}
	return out, nil
}

func probeReaddir(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", unwrap(err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	sort.Strings(names)
	return strings.Join(names, ","), unwrap(err)
}

func probeOpen(p string) (string, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	return "", err
}

func probeOpenWrite(p string) (string, error) {
	fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	return "", err
}

// probeStat reports the mode bits in octal (with the set-ID bits).
func probeStat(p string) (string, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return "", err
	}
	return fmt.Sprintf("%o uid=%d", st.Mode&0o7777, st.Uid), nil
}

// probeWrite creates or truncates a file and writes the marker, following
// symlinks.
func probeWrite(p string) (string, error) {
	fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	_, err = unix.Write(fd, []byte(writeMarker))
	return "", err
}

func probeUtimes(p string) (string, error) {
	ts := []unix.Timespec{unix.NsecToTimespec(0), unix.NsecToTimespec(0)}
	return "", unix.UtimesNano(p, ts)
}

func probeRename(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	return "", unix.Rename(a[0], a[1])
}

func probeLink(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	return "", unix.Link(a[0], a[1])
}

func probeSymlink(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	return "", unix.Symlink(a[0], a[1])
}

// probeChmod: "MODE|PATH", MODE in octal (fchmodat).
func probeChmod(arg string) (string, error) {
	mode, path, err := modeAndPath(arg)
	if err != nil {
		return "", err
	}
	return "", unix.Chmod(path, mode)
}

// probeChmodLegacy uses the old chmod(2) system call (amd64).
func probeChmodLegacy(arg string) (string, error) {
	mode, path, err := modeAndPath(arg)
	if err != nil {
		return "", err
	}
	if sysChmod < 0 {
		return "no legacy chmod on this architecture", nil
	}
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return "", err
	}
	nr := sysChmod // a variable: the constant is -1 where there is none
	_, _, e := unix.Syscall(uintptr(nr), uintptr(unsafe.Pointer(p)), uintptr(mode), 0)
	return "", errnoErr(e)
}

// probeChown: "UID:GID|PATH".
func probeChown(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	u, g, _ := strings.Cut(a[0], ":")
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("bad ids %q", a[0])
	}
	return "", unix.Lchown(a[1], uid, gid)
}

// probeCreat: "MODE|PATH", open(O_CREAT|O_EXCL) with that mode (openat).
func probeCreat(arg string) (string, error) {
	mode, path, err := modeAndPath(arg)
	if err != nil {
		return "", err
	}
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, mode)
	if err == nil {
		unix.Close(fd)
	}
	return "", err
}

// probeOpenLegacy: "MODE|PATH" with the old open(2) system call (amd64).
func probeOpenLegacy(arg string) (string, error) {
	return legacyCreate(arg, sysOpen, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC)
}

// probeCreatLegacy: "MODE|PATH" with creat(2) (amd64).
func probeCreatLegacy(arg string) (string, error) {
	return legacyCreate(arg, sysCreat, -1)
}

func legacyCreate(arg string, nr int, flags int) (string, error) {
	mode, path, err := modeAndPath(arg)
	if err != nil {
		return "", err
	}
	if nr < 0 {
		return "no legacy call on this architecture", nil
	}
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return "", err
	}
	var fd uintptr
	var e unix.Errno
	if flags < 0 {
		fd, _, e = unix.Syscall(uintptr(nr), uintptr(unsafe.Pointer(p)), uintptr(mode), 0)
	} else {
		fd, _, e = unix.Syscall(uintptr(nr), uintptr(unsafe.Pointer(p)), uintptr(flags), uintptr(mode))
	}
	if e != 0 {
		return "", e
	}
	unix.Close(int(fd))
	return "", nil
}

func probeMknodSUID(p string) (string, error) {
	return "", unix.Mknod(p, unix.S_IFREG|unix.S_ISUID|0o755, 0)
}

// probeSetxattr: "PATH|NAME|VALUE".
func probeSetxattr(arg string) (string, error) {
	a, err := splitArgs(arg, 3)
	if err != nil {
		return "", err
	}
	return "", unix.Lsetxattr(a[0], a[1], []byte(a[2]), 0)
}

// probeSetcap gives a file CAP_SETUID in its permitted and effective sets
// (a VFS_CAP_REVISION_2 security.capability attribute).
func probeSetcap(p string) (string, error) {
	var b bytes.Buffer
	const revision2, effective = 0x02000000, 0x000001
	le32 := func(v uint32) { b.Write([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}) }
	le32(revision2 | effective)
	le32(1 << unix.CAP_SETUID) // permitted, low word
	le32(0)                    // inheritable, low word
	le32(0)                    // permitted, high word
	le32(0)                    // inheritable, high word
	return "", unix.Setxattr(p, "security.capability", b.Bytes(), 0)
}

// probeFDRead: "N|MARKER": read descriptor N directly, through
// /proc/self/fd/N and through /proc/1/fd/N; allowed when any of them yields
// MARKER.
func probeFDRead(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	n, err := strconv.Atoi(a[0])
	if err != nil {
		return "", err
	}
	var notes []string
	var firstErr error
	try := func(how string, b []byte, err error) bool {
		if err != nil {
			notes = append(notes, how+": "+err.Error())
			if firstErr == nil {
				firstErr = err
			}
			return false
		}
		if bytes.Contains(b, []byte(a[1])) {
			notes = append(notes, how+": GOT THE SECRET")
			return true
		}
		notes = append(notes, how+": other content")
		return false
	}
	got := false
	b, err := readFD(n)
	got = try("fd", b, err) || got
	b, err = readFile("/proc/self/fd/" + a[0])
	got = try("/proc/self/fd", b, err) || got
	b, err = readFile("/proc/1/fd/" + a[0])
	got = try("/proc/1/fd", b, err) || got
	detail := strings.Join(notes, "; ")
	if got {
		return detail, nil
	}
	if firstErr == nil {
		firstErr = errNotObtained
	}
	return detail, firstErr
}

// probeOPathReopen opens PATH with O_PATH (which Landlock does not check)
// and then reopens it for reading through /proc/self/fd.
func probeOPathReopen(p string) (string, error) {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	b, err := readFile("/proc/self/fd/" + strconv.Itoa(fd))
	return string(b), err
}

// probeWaitExist waits up to 20 s for PATH to appear (stat), so the host can
// create a file after the sandbox started.
func probeWaitExist(p string) (string, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		var st unix.Stat_t
		err := unix.Stat(p, &st)
		if err == nil || time.Now().After(deadline) {
			return "", err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// probeHandle: "TYPE|HEXHANDLE|MOUNTPATH": open_by_handle_at on a handle
// the host obtained with name_to_handle_at; the detail is what was read.
func probeHandle(arg string) (string, error) {
	a, err := splitArgs(arg, 3)
	if err != nil {
		return "", err
	}
	typ, err := strconv.ParseInt(a[0], 10, 32)
	if err != nil {
		return "", err
	}
	raw, err := hex.DecodeString(a[1])
	if err != nil {
		return "", err
	}
	mfd, err := unix.Open(a[2], unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "mount dir: " + err.Error(), err
	}
	defer unix.Close(mfd)
	fd, err := unix.OpenByHandleAt(mfd, unix.NewFileHandle(int32(typ), raw), unix.O_RDONLY|unix.O_CLOEXEC)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	b, err := readFD(fd)
	return string(b), err
}

// unwrap returns the errno inside an *os.PathError and the like.
func unwrap(err error) error {
	if err == nil {
		return nil
	}
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		next := u.Unwrap()
		if next == nil {
			return err
		}
		err = next
	}
}

func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func init() {
	register(map[string]probeFunc{
		"put":    probePut,
		"sparse": probeSparse,
		"sleep":  probeSleep,
	})
}

// probePut: "PATH|QUOTED": writes the Go-unquoted content to PATH.
func probePut(arg string) (string, error) {
	path, quoted, ok := strings.Cut(arg, "|")
	if !ok {
		return "", fmt.Errorf("want PATH|QUOTED, got %q", arg)
	}
	content, err := strconv.Unquote(quoted)
	if err != nil {
		return "", err
	}
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	_, err = unix.Write(fd, []byte(content))
	return "", err
}

func probeSleep(arg string) (string, error) {
	d, err := time.ParseDuration(arg)
	if err != nil {
		return "", err
	}
	time.Sleep(d)
	return "", nil
}

// modeAndPath parses a "MODE|PATH" argument (MODE in octal).
func modeAndPath(arg string) (uint32, string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return 0, "", err
	}
	mode, err := strconv.ParseUint(a[0], 8, 32)
	if err != nil {
		return 0, "", badArgs(fmt.Sprintf("mode %q: %v", a[0], err))
	}
	return uint32(mode), a[1], nil
}

// probeSparse makes PATH a sparse file of SIZE bytes (PATH|SIZE), which
// costs no disk space.
func probeSparse(arg string) (string, error) {
	path, size, ok := strings.Cut(arg, "|")
	if !ok {
		return "", fmt.Errorf("want PATH|SIZE, got %q", arg)
	}
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil {
		return "", err
	}
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return "", unix.Ftruncate(fd, n)
}
