//go:build linux

package main

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{"tcpproto": probeTCPProto})
}

// streamProtocols are the IP protocols a SOCK_STREAM socket may carry.
var streamProtocols = map[string]int{"tcp": unix.IPPROTO_TCP, "mptcp": unix.IPPROTO_MPTCP, "sctp": unix.IPPROTO_SCTP}

// probeTCPProto: socket(AF_INET or AF_INET6, SOCK_STREAM, PROTO), connect
// to HOST:PORT and send the marker. PROTO is tcp, mptcp or sctp: an MPTCP
// socket reaches any TCP server (it falls back to plain TCP), yet it is
// not a TCP socket to the kernel's checks that look at the protocol.
func probeTCPProto(arg string) (string, error) {
	name, addr, ok := strings.Cut(arg, ":")
	proto, known := streamProtocols[name]
	if !ok || !known {
		return "", fmt.Errorf("want PROTO:HOST:PORT, got %q", arg)
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return "", err
	}
	family := unix.AF_INET6
	var sa unix.Sockaddr = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	if ap.Addr().Is4() {
		family = unix.AF_INET
		sa = &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return "socket", err
	}
	defer unix.Close(fd)
	tv := unix.Timeval{Sec: 2}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	if err := unix.Connect(fd, sa); err != nil {
		return "connect", err
	}
	if _, err := unix.Write(fd, []byte(netMarker)); err != nil {
		return "write", err
	}
	return "connected over " + name + " to " + addr, nil
}
