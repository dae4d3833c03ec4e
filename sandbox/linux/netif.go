//go:build linux

package linux

import (
	"fmt"

	"github.com/agentbox-dev/agentbox/sandbox/proxyaddr"
	"golang.org/x/sys/unix"
)

// DefaultProxyPort is the loopback port the egress proxy listens on inside a
// filtered sandbox.
const DefaultProxyPort = proxyaddr.Port

// proxyFD is the listening socket the init created for the egress proxy, or -1.
var proxyFD = -1

func proxyListenerFD() []int {
	if proxyFD < 0 {
		return nil
	}
	return []int{proxyFD}
}

func closeProxyListener() {
	if proxyFD >= 0 {
		unix.Close(proxyFD)
		proxyFD = -1
	}
}

// setUpNetwork brings the namespace's loopback up and, for the filtered mode,
// opens the proxy's listening socket inside it. The socket belongs to this
// network namespace wherever its descriptor goes, so the agentbox process
// serves it without ever entering the namespace, and no other host process
// can reach it.
func setUpNetwork(s *initSpec) (string, error) {
	switch s.Network {
	case "allowed":
		return LayerNetHost, nil
	case "blocked", "filtered":
	default:
		return "", fmt.Errorf("unknown network mode %q", s.Network)
	}
	if err := loopbackUp(); err != nil {
		return "", err
	}
	if s.Network == "blocked" {
		return LayerNetBlocked, nil
	}
	fd, err := listenLoopback(s.ProxyPort)
	if err != nil {
		return "", err
	}
	proxyFD = fd
	return LayerNetFiltered, nil
}

func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("lo flags: %w", err)
	}
	if ifr.Uint16()&unix.IFF_UP != 0 {
		return nil // up already: brought up ahead (prepareAhead), or the host's
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("lo up: %w", err)
	}
	return nil
}

func listenLoopback(port int) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("bind 127.0.0.1:%d: %w", port, err)
	}
	if err := unix.Listen(fd, 1024); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("listen: %w", err)
	}
	return fd, nil
}
