//go:build linux

package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func init() {
	register(map[string]probeFunc{
		"tcp":        probeTCP,
		"tcpself":    probeTCPSelf,
		"udproute":   probeUDPRoute,
		"unixstream": probeUnixStream,
		"unixdgram":  probeUnixDgram,
		"pairdgram":  probePairDgram,
		"pairstream": probePairStream,
		"socket":     probeSocket,
	})
}

// The payload every outbound probe sends; the host's listeners count it.
const netMarker = "agentbox-attack-payload"

// probeTCP connects to HOST:PORT and sends the marker.
func probeTCP(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return "", unwrap(err)
	}
	defer c.Close()
	_, err = c.Write([]byte(netMarker))
	return "connected to " + c.RemoteAddr().String(), unwrap(err)
}

// probeTCPSelf listens on the sandbox's own loopback and connects to it:
// the control for probeTCP.
func probeTCPSelf(string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", unwrap(err)
	}
	defer l.Close()
	got := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- ""
			return
		}
		defer c.Close()
		buf := make([]byte, 64)
		n, _ := c.Read(buf)
		got <- string(buf[:n])
	}()
	c, err := net.DialTimeout("tcp", l.Addr().String(), 2*time.Second)
	if err != nil {
		return "", unwrap(err)
	}
	_, _ = c.Write([]byte(netMarker))
	c.Close()
	if s := <-got; s != netMarker {
		return "received " + strconv.Quote(s), errNotObtained
	}
	return "round trip over " + l.Addr().String(), nil
}

// probeUDPRoute connects a UDP socket (which sends nothing) to find out
// whether a route to ADDR exists.
func probeUDPRoute(addr string) (string, error) {
	c, err := net.Dial("udp", addr)
	if err != nil {
		return "", unwrap(err)
	}
	defer c.Close()
	return "route via " + c.LocalAddr().String(), nil
}

// unixAddr turns "@name" into an abstract address.
func unixAddr(p string) unix.Sockaddr {
	if strings.HasPrefix(p, "@") {
		return &unix.SockaddrUnix{Name: "\x00" + p[1:]}
	}
	return &unix.SockaddrUnix{Name: p}
}

// probeUnixStream: socket(AF_UNIX, SOCK_STREAM) and connect to PATH or @NAME.
func probeUnixStream(p string) (string, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "socket", err
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, unixAddr(p)); err != nil {
		return "connect", err
	}
	_, err = unix.Write(fd, []byte(netMarker))
	return "connected", err
}

// probeUnixDgram: socket(AF_UNIX, SOCK_DGRAM) and sendto PATH or @NAME.
func probeUnixDgram(p string) (string, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "socket", err
	}
	defer unix.Close(fd)
	if err := unix.Sendto(fd, []byte(netMarker), 0, unixAddr(p)); err != nil {
		return "sendto", err
	}
	return "sent", nil
}

// probePairDgram gets an AF_UNIX datagram socket from socketpair(2), which
// is allowed, and sends to PATH or @NAME with it.
func probePairDgram(p string) (string, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "socketpair", err
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if err := unix.Sendto(fds[0], []byte(netMarker), 0, unixAddr(p)); err != nil {
		return "sendto", err
	}
	return "sent through a socketpair socket", nil
}

// probePairStream: a socketpair round trip, the control for the unix probes.
func probePairStream(string) (string, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if _, err := unix.Write(fds[0], []byte(netMarker)); err != nil {
		return "", err
	}
	buf := make([]byte, 64)
	n, err := unix.Read(fds[1], buf)
	if err != nil {
		return "", err
	}
	if string(buf[:n]) != netMarker {
		return string(buf[:n]), errNotObtained
	}
	return "round trip", nil
}

var families = map[string]int{
	"unix": unix.AF_UNIX, "inet": unix.AF_INET, "inet6": unix.AF_INET6, "packet": unix.AF_PACKET,
	"netlink": unix.AF_NETLINK, "vsock": unix.AF_VSOCK, "alg": unix.AF_ALG, "xdp": unix.AF_XDP,
	"key": unix.AF_KEY, "tipc": unix.AF_TIPC, "bluetooth": unix.AF_BLUETOOTH, "can": unix.AF_CAN,
}

var sockTypes = map[string]int{
	"stream": unix.SOCK_STREAM, "dgram": unix.SOCK_DGRAM, "raw": unix.SOCK_RAW, "seqpacket": unix.SOCK_SEQPACKET,
}

// probeSocket: "FAMILY:TYPE:PROTO" (PROTO a number, may be empty).
func probeSocket(arg string) (string, error) {
	parts := strings.SplitN(arg, ":", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	fam, ok1 := families[parts[0]]
	typ, ok2 := sockTypes[parts[1]]
	if !ok1 || !ok2 {
		return "", fmt.Errorf("bad socket argument %q", arg)
	}
	proto := 0
	if parts[2] != "" {
		p, err := strconv.Atoi(parts[2])
		if err != nil {
			return "", err
		}
		proto = p
	}
	fd, err := unix.Socket(fam, typ|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		return "", err
	}
	unix.Close(fd)
	return "", nil
}
