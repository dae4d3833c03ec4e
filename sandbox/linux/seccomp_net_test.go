//go:build linux

package linux

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSeccompInbound checks what the reduced tier leaves of listen(2):
// nothing while unix sockets are refused (a TCP socket that listens
// unbound gets a port on the host's interfaces, which Landlock does not
// check), and for unix servers when they are allowed, with TCP sockets
// refused then where no TCP is allowed at all.
func TestSeccompInbound(t *testing.T) {
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	noAF := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT))
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	var (
		full          = seccompOptions{}
		fullUnix      = seccompOptions{allowUnix: true}
		hostNet       = seccompOptions{hostShared: true}
		reduced       = seccompOptions{hostShared: true, streamOnly: true, noTCP: true}
		reducedUnix   = seccompOptions{hostShared: true, streamOnly: true, noTCP: true, allowUnix: true}
		reducedPorts  = seccompOptions{hostShared: true, streamOnly: true}
		portsWithUnix = seccompOptions{hostShared: true, streamOnly: true, allowUnix: true}
	)
	tcp := [6]uint64{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_CLOEXEC}
	tcp6 := [6]uint64{unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP}
	unixStream := [6]uint64{unix.AF_UNIX, unix.SOCK_STREAM}
	tests := []struct {
		name string
		opts seccompOptions
		nr   int
		args [6]uint64
		want uint32
	}{
		{"full tier: listen", full, unix.SYS_LISTEN, [6]uint64{3, 8}, allow},
		{"full tier, unix allowed: listen", fullUnix, unix.SYS_LISTEN, [6]uint64{3, 8}, allow},
		{"reduced, network allowed: listen", hostNet, unix.SYS_LISTEN, [6]uint64{3, 8}, allow},
		{"reduced, network allowed: tcp socket", hostNet, unix.SYS_SOCKET, tcp, allow},
		{"reduced: listen", reduced, unix.SYS_LISTEN, [6]uint64{3, 8}, eperm},
		{"reduced: tcp socket", reduced, unix.SYS_SOCKET, tcp, allow},
		{"reduced: accept", reduced, unix.SYS_ACCEPT4, [6]uint64{3}, allow},
		{"reduced, ports: listen", reducedPorts, unix.SYS_LISTEN, [6]uint64{3, 8}, eperm},
		{"reduced, unix allowed: listen", reducedUnix, unix.SYS_LISTEN, [6]uint64{3, 8}, allow},
		{"reduced, unix allowed: unix socket", reducedUnix, unix.SYS_SOCKET, unixStream, allow},
		{"reduced, unix allowed: tcp socket", reducedUnix, unix.SYS_SOCKET, tcp, noAF},
		{"reduced, unix allowed: tcp6 socket", reducedUnix, unix.SYS_SOCKET, tcp6, noAF},
		{"reduced, unix allowed: netlink", reducedUnix, unix.SYS_SOCKET, [6]uint64{unix.AF_NETLINK, unix.SOCK_RAW}, noAF},
		// The known gap: TCP connect allowed to some port, unix servers too.
		{"reduced, ports and unix: tcp socket", portsWithUnix, unix.SYS_SOCKET, tcp, allow},
		{"reduced, ports and unix: listen", portsWithUnix, unix.SYS_LISTEN, [6]uint64{3, 8}, allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prog, err := buildSeccomp(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := runBPF(t, prog, nativeAuditArch, tc.nr, tc.args); got != tc.want {
				t.Errorf("got %#x, want %#x", got, tc.want)
			}
		})
	}
}

// TestReducedNetLayer checks that the reduced tier's network layer says
// what seccomp leaves of TCP, the listen(2) gap included.
func TestReducedNetLayer(t *testing.T) {
	ll := &landlockRuleset{abi: 7, tcp: true}
	none := &landlockSpec{TCP: true}
	ports := &landlockSpec{TCP: true, ConnectPorts: []int{3128}}
	tests := []struct {
		name string
		r    *landlockRuleset
		s    *landlockSpec
		o    seccompOptions
		want string
	}{
		{"network allowed", ll, &landlockSpec{}, seccompOptions{hostShared: true}, "network(host: allowed)"},
		{"no TCP", ll, none, seccompOptions{streamOnly: true, noTCP: true}, "landlock-net(no TCP; seccomp: no listen(2)"},
		{"no TCP, unix allowed", ll, none, seccompOptions{streamOnly: true, noTCP: true, allowUnix: true}, "network(none; seccomp: no TCP"},
		{"no Landlock, unix allowed", nil, none, seccompOptions{streamOnly: true, noTCP: true, allowUnix: true}, "network(none; seccomp: no TCP"},
		{"no Landlock", nil, none, seccompOptions{streamOnly: true, noTCP: true}, "network(UNRESTRICTED TCP"},
		{"ports", ll, ports, seccompOptions{streamOnly: true}, "landlock-net(TCP connect to port [3128] only; seccomp: no listen(2)"},
		{"ports and unix", ll, ports, seccompOptions{streamOnly: true, allowUnix: true}, "listen(2) without bind(2) is NOT confined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.netLayer(tc.s, tc.o); !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}
