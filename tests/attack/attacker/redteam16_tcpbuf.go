//go:build linux

package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{"tcphold": probeTCPHold})
}

// probeTCPHold queues MiB MiB of data in TCP connections over the
// sandbox's own loopback, none of it read: the kernel keeps it in the
// connections' send and receive queues, memory of the sandbox's making.
// It reports what it got, with the machine's TCP memory (in pages, from
// /proc/net/sockstat, which counts every network namespace together) and
// fails when the kernel stopped it short.
func probeTCPHold(arg string) (string, error) {
	want, err := parseMiB(arg)
	if err != nil {
		return "", err
	}
	ls, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	if err := unix.Bind(ls, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return "", err
	}
	if err := unix.Listen(ls, 1024); err != nil {
		return "", err
	}
	sa, err := unix.Getsockname(ls)
	if err != nil {
		return "", err
	}
	chunk := make([]byte, 256<<10)
	total, conns := 0, 0
	var lastErr error
	for conns < 400 && total < want*mib {
		c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			lastErr = err
			break
		}
		// Ask for the most an unprivileged socket may have (net.core.wmem_max
		// and rmem_max); the kernel caps it, and autotuning grows it anyway.
		_ = unix.SetsockoptInt(c, unix.SOL_SOCKET, unix.SO_SNDBUF, 64<<20)
		if err := unix.Connect(c, sa); err != nil {
			lastErr = err
			break
		}
		a, _, err := unix.Accept4(ls, unix.SOCK_CLOEXEC)
		if err != nil {
			lastErr = err
			break
		}
		_ = unix.SetsockoptInt(a, unix.SOL_SOCKET, unix.SO_RCVBUF, 64<<20)
		held = append(held, c, a)
		conns++
		if err := unix.SetNonblock(c, true); err != nil {
			return "", err
		}
		before := total
		for stalls := 0; stalls < 3 && total < want*mib; {
			n, err := unix.Write(c, chunk)
			if err == unix.EAGAIN {
				stalls++
				time.Sleep(2 * time.Millisecond)
				continue
			}
			if err != nil {
				lastErr = err
				break
			}
			total += n
		}
		if total == before {
			// Nothing more went into a fresh connection: the kernel
			// refuses the memory (the cgroup's limit, or the machine's).
			break
		}
	}
	detail := fmt.Sprintf("held %d MiB in %d connections; %s", total/mib, conns, tcpSockstat())
	if total < want*mib {
		if lastErr == nil {
			lastErr = errNotObtained
		}
		return detail, lastErr
	}
	return detail, nil
}

// tcpSockstat returns the TCP line of /proc/net/sockstat.
func tcpSockstat() string {
	b, _ := os.ReadFile("/proc/net/sockstat")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "TCP:") {
			return l
		}
	}
	return "no sockstat"
}
