package egress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// routeClass asks the kernel how it would route a packet this process sends
// to a (netlink RTM_GETROUTE, the question "ip route get" asks, policy
// rules and this process's uid included) and returns the guard class of
// an address the host itself takes or floods, or "" for one it forwards or
// cannot route at all:
//
//   - local and anycast routes deliver to this host: an AnyIP range
//     ("ip route add local 2001:db8::/64 dev lo"), a local route with
//     another preferred source, the IPv6 subnet-router anycast address;
//   - broadcast and multicast routes reach this host and its neighbours;
//   - unicast routes leave the host; unreachable, blackhole and prohibit
//     routes (IPv6 answers them as routes, IPv4 as errors: EACCES for
//     prohibit, passed; EINVAL for blackhole, refused as a failed lookup)
//     drop the packet, so there is nothing to reach.
//
// Any other route type, and any failure to ask or to read the answer, is
// an error: the caller refuses the address rather than guess.
func routeClass(a netip.Addr) (string, error) {
	typ, err := routeType(a)
	switch {
	case errors.Is(err, unix.ENETUNREACH), errors.Is(err, unix.EHOSTUNREACH), errors.Is(err, unix.EACCES):
		// No route, or an IPv4 prohibit route: nothing to reach, here or
		// elsewhere.
		return "", nil
	case errors.Is(err, unix.EINVAL):
		// IPv4 answers a blackhole route so; refused, since the answer
		// cannot be told from a malformed question.
		return "", fmt.Errorf("the kernel refused to route %s (an IPv4 blackhole route answers so): %w", a, err)
	case err != nil:
		return "", err
	}
	switch typ {
	case unix.RTN_UNICAST, unix.RTN_UNREACHABLE, unix.RTN_BLACKHOLE, unix.RTN_PROHIBIT:
		return "", nil
	case unix.RTN_LOCAL, unix.RTN_ANYCAST:
		return classHostAddress, nil
	case unix.RTN_BROADCAST:
		return classBroadcast, nil
	case unix.RTN_MULTICAST:
		return classMulticast, nil
	}
	return "", fmt.Errorf("the kernel routes %s by a route of type %d, which the guard does not know", a, typ)
}

// routeType returns the type (unix.RTN_*) of the route the kernel picks for
// a. A lookup the kernel refuses (no route, a blackhole, …) is returned as
// its errno, wrapped.
func routeType(a netip.Addr) (uint8, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return 0, fmt.Errorf("route lookup: netlink socket: %w", os.NewSyscallError("socket", err))
	}
	defer unix.Close(fd)
	const seq = 1
	kernel := &unix.SockaddrNetlink{Family: unix.AF_NETLINK}
	if err := unix.Sendto(fd, routeRequest(a, seq), 0, kernel); err != nil {
		return 0, fmt.Errorf("route lookup: %w", os.NewSyscallError("sendto", err))
	}
	// The kernel answers a route request while sending it: the answer is
	// queued when Sendto returns, and no answer there is a failure.
	buf := make([]byte, 4096)
	for {
		n, from, err := unix.Recvfrom(fd, buf, unix.MSG_DONTWAIT)
		if err != nil {
			return 0, fmt.Errorf("route lookup: %w", os.NewSyscallError("recvfrom", err))
		}
		if nl, ok := from.(*unix.SockaddrNetlink); !ok || nl.Pid != 0 {
			continue // not from the kernel
		}
		typ, done, err := parseRouteReply(buf[:n], seq)
		if done || err != nil {
			return typ, err
		}
	}
}

// routeRequest builds an RTM_GETROUTE request for the route to a, as a
// packet sent by this process's effective uid.
func routeRequest(a netip.Addr, seq uint32) []byte {
	family, addr := byte(unix.AF_INET), a.AsSlice()
	if a.Is6() {
		family = unix.AF_INET6
	}
	uid := make([]byte, 4)
	binary.NativeEndian.PutUint32(uid, uint32(os.Geteuid()))
	attrs := append(rtAttr(unix.RTA_DST, addr), rtAttr(unix.RTA_UID, uid)...)

	b := make([]byte, unix.SizeofNlMsghdr+unix.SizeofRtMsg, unix.SizeofNlMsghdr+unix.SizeofRtMsg+len(attrs))
	hdr := (*unix.NlMsghdr)(unsafe.Pointer(&b[0]))
	hdr.Len = uint32(cap(b))
	hdr.Type = unix.RTM_GETROUTE
	hdr.Flags = unix.NLM_F_REQUEST
	hdr.Seq = seq
	rtm := (*unix.RtMsg)(unsafe.Pointer(&b[unix.SizeofNlMsghdr]))
	rtm.Family = family
	rtm.Dst_len = uint8(8 * len(addr))
	return append(b, attrs...)
}

// rtAttr encodes one route attribute, padded to the netlink alignment.
func rtAttr(typ uint16, data []byte) []byte {
	l := unix.SizeofRtAttr + len(data)
	b := make([]byte, (l+unix.RTA_ALIGNTO-1)&^(unix.RTA_ALIGNTO-1))
	binary.NativeEndian.PutUint16(b[0:2], uint16(l))
	binary.NativeEndian.PutUint16(b[2:4], typ)
	copy(b[unix.SizeofRtAttr:], data)
	return b
}

// parseRouteReply reads the kernel's answer to request seq: the route's
// type, or the errno the kernel answered with. done is false for a
// datagram that does not answer seq.
func parseRouteReply(b []byte, seq uint32) (typ uint8, done bool, err error) {
	msgs, err := syscall.ParseNetlinkMessage(b)
	if err == nil && len(msgs) == 0 {
		err = errors.New("no message in it")
	}
	if err != nil {
		return 0, true, fmt.Errorf("route lookup: reading the kernel's answer: %w", err)
	}
	for _, m := range msgs {
		if m.Header.Seq != seq {
			continue
		}
		switch m.Header.Type {
		case unix.NLMSG_ERROR:
			if len(m.Data) < 4 {
				return 0, true, errors.New("route lookup: a short netlink error")
			}
			errno := -int32(binary.NativeEndian.Uint32(m.Data[:4]))
			if errno == 0 {
				return 0, true, errors.New("route lookup: the kernel acknowledged without a route")
			}
			return 0, true, fmt.Errorf("route lookup: %w", syscall.Errno(errno))
		case unix.RTM_NEWROUTE:
			if len(m.Data) < unix.SizeofRtMsg {
				return 0, true, errors.New("route lookup: a short route message")
			}
			return (*unix.RtMsg)(unsafe.Pointer(&m.Data[0])).Type, true, nil
		}
	}
	return 0, false, nil
}
