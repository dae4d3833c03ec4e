//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"listenauto": probeListenAuto,
	})
}

// probeListenAuto listens on a TCP socket it never bound (the kernel binds
// it to an ephemeral port on the wildcard address, dual-stack), writes the
// port to PATH, and waits up to 20 s for one connection: it reads a line
// from it and answers "pong". Success means a peer outside the sandbox
// exchanged data with it.
func probeListenAuto(p string) (string, error) {
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "socket", err
	}
	defer unix.Close(fd)
	if err := unix.Listen(fd, 8); err != nil {
		return "listen", err
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return "getsockname", err
	}
	sa6, ok := sa.(*unix.SockaddrInet6)
	if !ok {
		return fmt.Sprintf("getsockname: %T", sa), errNotObtained
	}
	if err := os.WriteFile(p+".tmp", []byte(strconv.Itoa(sa6.Port)), 0o644); err != nil {
		return "write port", err
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		return "rename port file", err
	}
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if n, err := unix.Poll(pfd, 20000); err != nil || n == 0 {
		return fmt.Sprintf("listening on [::]:%d, nobody came", sa6.Port), errNotObtained
	}
	c, peer, err := unix.Accept4(fd, unix.SOCK_CLOEXEC)
	if err != nil {
		return "accept", err
	}
	defer unix.Close(c)
	buf := make([]byte, 128)
	n, _ := unix.Read(c, buf)
	_, _ = unix.Write(c, []byte("pong\n"))
	from := ""
	switch a := peer.(type) {
	case *unix.SockaddrInet6:
		from = fmt.Sprintf("%v:%d", a.Addr, a.Port)
	case *unix.SockaddrInet4:
		from = fmt.Sprintf("%v:%d", a.Addr, a.Port)
	}
	return fmt.Sprintf("listened on [::]:%d, accepted %s, read %q", sa6.Port, from, strings.TrimSpace(string(buf[:max(n, 0)]))), nil
}
