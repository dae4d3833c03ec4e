//go:build linux

package main

import (
	"encoding/binary"
	"net/netip"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"bindreuse": probeBindReuse,
		"nladdr":    probeNetlinkAddr,
		"pingsock":  probePingSocket,
	})
}

// probeBindReuse binds a TCP socket with SO_REUSEADDR and SO_REUSEPORT to
// HOST:PORT and listens there: in the filtered mode, an attempt to take
// over the egress proxy's port inside the sandbox (and so the other
// processes' proxied connections).
func probeBindReuse(arg string) (string, error) {
	ap, err := netip.ParseAddrPort(arg)
	if err != nil {
		return "", err
	}
	family := unix.AF_INET6
	var sa unix.Sockaddr = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	if ap.Addr().Is4() {
		family = unix.AF_INET
		sa = &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "socket", err
	}
	defer unix.Close(fd)
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
	if family == unix.AF_INET6 {
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0)
	}
	if err := unix.Bind(fd, sa); err != nil {
		return "bind", err
	}
	if err := unix.Listen(fd, 8); err != nil {
		return "listen", err
	}
	return "listening on " + arg, nil
}

// probeNetlinkAddr asks rtnetlink to add ADDR/32 to the loopback device
// (RTM_NEWADDR): a change of the sandbox's network that needs
// CAP_NET_ADMIN.
func probeNetlinkAddr(arg string) (string, error) {
	a, err := netip.ParseAddr(arg)
	if err != nil || !a.Is4() {
		return "", unix.EINVAL
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return "socket", err
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return "bind", err
	}
	ip := a.As4()
	// nlmsghdr(16) + ifaddrmsg(8) + IFA_LOCAL rtattr(8) + IFA_ADDRESS rtattr(8)
	msg := make([]byte, 40)
	le := binary.LittleEndian
	le.PutUint32(msg[0:], 40)
	le.PutUint16(msg[4:], unix.RTM_NEWADDR)
	le.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	le.PutUint32(msg[8:], 1)
	msg[16] = unix.AF_INET
	msg[17] = 32
	le.PutUint32(msg[20:], 1) // ifindex of lo
	le.PutUint16(msg[24:], 8)
	le.PutUint16(msg[26:], unix.IFA_LOCAL)
	copy(msg[28:], ip[:])
	le.PutUint16(msg[32:], 8)
	le.PutUint16(msg[34:], unix.IFA_ADDRESS)
	copy(msg[36:], ip[:])
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return "sendto", err
	}
	tv := unix.Timeval{Sec: 2}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return "recv", err
	}
	if n < 20 || le.Uint16(buf[4:]) != unix.NLMSG_ERROR {
		return "unexpected answer", errNotObtained
	}
	if code := int32(le.Uint32(buf[16:])); code != 0 {
		return "rtnetlink", unix.Errno(-code)
	}
	return "address " + arg + " added to lo", nil
}

// probePingSocket makes an unprivileged ICMP socket (SOCK_DGRAM,
// IPPROTO_ICMP), which net.ipv4.ping_group_range of the network namespace
// governs.
func probePingSocket(string) (string, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.IPPROTO_ICMP)
	if err != nil {
		return "socket", err
	}
	unix.Close(fd)
	return "ping socket made", nil
}
