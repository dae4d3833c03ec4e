//go:build linux

package main

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"sysvshm":    probeSysvShm,
		"sysvshmown": probeSysvShmOwn,
		"mqopen":     probeMqOpen,
	})
}

// probeSysvShm: "KEY": attach the System V shared memory segment with that
// key and read its first bytes.
func probeSysvShm(arg string) (string, error) {
	key, err := strconv.ParseInt(arg, 10, 32)
	if err != nil {
		return "", fmt.Errorf("bad shm key %q", arg)
	}
	id, err := unix.SysvShmGet(int(key), 0, 0)
	if err != nil {
		return "", err
	}
	b, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
	if err != nil {
		return fmt.Sprintf("segment %d found", id), err
	}
	defer unix.SysvShmDetach(b)
	n := min(len(b), 64)
	return strconv.Quote(string(b[:n])), nil
}

// probeSysvShmOwn creates, writes, reads back and removes a private
// segment: System V IPC of the sandbox's own still works.
func probeSysvShmOwn(string) (string, error) {
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		return "", err
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	b, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		return "", err
	}
	defer unix.SysvShmDetach(b)
	copy(b, "own segment")
	return string(b[:11]), nil
}

// probeMqOpen: "/NAME": open the POSIX message queue NAME for reading.
func probeMqOpen(name string) (string, error) {
	p, err := unix.BytePtrFromString(name[1:])
	if err != nil {
		return "", err
	}
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, ptr(p), unix.O_RDONLY|unix.O_CLOEXEC, 0, 0, 0, 0)
	if errno != 0 {
		return "", errno
	}
	unix.Close(int(fd))
	return "opened " + name, nil
}
