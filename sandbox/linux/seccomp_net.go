//go:build linux

package linux

import "golang.org/x/sys/unix"

// The socket rules. In the full tier the sandbox has a network namespace
// of its own and seccomp only keeps out the families nothing needs. The
// reduced tier (streamOnly, when its network is not "allowed") shares the
// host's: Landlock restricts TCP bind and connect, and seccomp must refuse
// whatever Landlock does not see.

// socketRule allows only the socket families a workload needs. AF_UNIX is
// left out unless allowUnix: a path socket is reachable across network
// namespaces, and before Landlock ABI 9 (LANDLOCK_ACCESS_FS_RESOLVE_UNIX)
// nothing else stops a sandboxed program from connecting to a host service
// listening on one (socketpair stays allowed).
//
// Without a network namespace (the reduced tier) only TCP is left: Landlock
// restricts TCP ports, and nothing could restrict UDP, raw or netlink
// sockets reaching the host's network. Not even TCP where the tier allows
// no TCP at all and unix sockets are allowed (see refusesInet).
func socketRule(o seccompOptions) argRule {
	families := []uint32{unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK}
	switch {
	case o.refusesInet():
		families = nil
	case o.streamOnly:
		families = families[:2]
	}
	if o.allowUnix {
		families = append(families, unix.AF_UNIX)
	}
	r := rule(unix.SYS_SOCKET, 0, denyIfNotIn, unix.EAFNOSUPPORT, families...)
	if o.streamOnly {
		// TCP itself: Landlock's TCP rules see only IPPROTO_TCP sockets,
		// and an MPTCP (or SCTP, SMC) stream would connect anywhere.
		r.tests = append(r.tests,
			argTest{arg: 1, mask: 0xf, check: denyIfNotIn, values: []uint32{unix.SOCK_STREAM}},
			argTest{arg: 2, check: denyIfNotIn, values: []uint32{0, unix.IPPROTO_TCP}, errno: unix.EPROTONOSUPPORT})
	}
	return r
}

// socketpairRule keeps socketpair from reaching what socket may not: an
// AF_UNIX datagram socket from a pair can still connect or send to a path,
// so only stream and seqpacket pairs (which are bound to each other) are
// allowed while unix sockets are refused.
func socketpairRule(o seccompOptions) []argRule {
	if o.allowUnix {
		return nil
	}
	r := rule(unix.SYS_SOCKETPAIR, 1, denyIfNotIn, unix.EPERM, unix.SOCK_STREAM, unix.SOCK_SEQPACKET)
	r.tests[0].mask = 0xf // the type without SOCK_CLOEXEC and SOCK_NONBLOCK
	return []argRule{r}
}

// inboundCalls are refused (EPERM) where seccomp leaves TCP to Landlock
// and unix sockets are refused: listen(2) on a TCP socket never bound
// makes the kernel bind it to a free port on every interface of the host
// (inet_autobind), and Landlock checks only bind(2), so any host process,
// and any machine that reaches the host, could connect to the sandbox.
// No legitimate listener is left there: Landlock refuses every TCP bind,
// seccomp every unix socket, and a socketpair comes connected. (accept(2)
// needs a listener, so it goes with it.)
var inboundCalls = []uintptr{unix.SYS_LISTEN}

// streamDenied are the calls refused whole for the socket rules.
func streamDenied(o seccompOptions) []uintptr {
	if o.streamOnly && !o.allowUnix {
		return inboundCalls
	}
	return nil
}

// refusesInet reports whether TCP sockets are refused at creation: the
// reduced tier allows no TCP connect or bind at all (noTCP), and unix
// servers need listen(2), which seccomp cannot tell from a TCP socket's
// (it sees a descriptor, not its family), so TCP sockets go instead.
func (o seccompOptions) refusesInet() bool { return o.streamOnly && o.noTCP && o.allowUnix }

// streamLayer says what seccomp leaves of TCP in the reduced tier, for
// its network layer.
func (o seccompOptions) streamLayer() string {
	switch {
	case o.refusesInet():
		return "seccomp: no TCP, UDP, raw or netlink sockets"
	case o.allowUnix:
		// Known gap: unix servers need listen(2), and a TCP socket that
		// listens unbound gets a port on every interface unchecked.
		return "seccomp: no UDP, raw or netlink sockets; TCP listen(2) without bind(2) is NOT confined"
	default:
		return "seccomp: no listen(2), UDP, raw or netlink sockets"
	}
}
