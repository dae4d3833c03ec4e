//go:build linux

package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

func init() {
	register(map[string]probeFunc{
		"proxyconnect": probeProxyConnect,
		"proxyget":     probeProxyGet,
		"socks":        probeSocks,
	})
}

// refusal is an answer of the egress proxy that refuses a request; its
// errno name is the answer ("HTTP403", "SOCKS2").
type refusal string

func (r refusal) Error() string { return string(r) }

// proxyAddr returns host:port of the proxy named by the environment
// variable (HTTP_PROXY or ALL_PROXY).
func proxyAddr(env string) (string, error) {
	v := os.Getenv(env)
	if v == "" {
		return "", fmt.Errorf("$%s is not set", env)
	}
	u, err := url.Parse(v)
	if err != nil {
		return "", err
	}
	return u.Host, nil
}

func dialProxy(env string) (net.Conn, error) {
	addr, err := proxyAddr(env)
	if err != nil {
		return nil, err
	}
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		return nil, unwrap(err)
	}
	_ = c.SetDeadline(time.Now().Add(15 * time.Second))
	return c, nil
}

// readGreeting reads what the far end sends first (a line, or whatever
// arrives within a second).
func readGreeting(r io.Reader) string {
	buf := make([]byte, 128)
	n, _ := r.Read(buf)
	return string(buf[:n])
}

// probeProxyConnect asks the HTTP proxy ($HTTP_PROXY) for a CONNECT tunnel
// to HOST:PORT; allowed when it answers 200, and the detail is what the far
// end sent.
func probeProxyConnect(target string) (string, error) {
	c, err := dialProxy("HTTP_PROXY")
	if err != nil {
		return "dial proxy", err
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil {
		return "no answer from the proxy", unwrap(err)
	}
	for { // headers
		l, err := br.ReadString('\n')
		if err != nil || strings.TrimSpace(l) == "" {
			break
		}
	}
	f := strings.Fields(status)
	if len(f) < 2 || f[1] != "200" {
		code := "?"
		if len(f) >= 2 {
			code = f[1]
		}
		return strings.TrimSpace(status), refusal("HTTP" + code)
	}
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	return "tunnel open; far end said " + strconv.Quote(readGreeting(br)), nil
}

// probeProxyGet sends an absolute-URI GET to the HTTP proxy.
func probeProxyGet(rawURL string) (string, error) {
	c, err := dialProxy("HTTP_PROXY")
	if err != nil {
		return "dial proxy", err
	}
	defer c.Close()
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", rawURL, u.Host)
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil {
		return "no answer from the proxy", unwrap(err)
	}
	f := strings.Fields(status)
	if len(f) < 2 || !strings.HasPrefix(f[1], "2") {
		code := "?"
		if len(f) >= 2 {
			code = f[1]
		}
		return strings.TrimSpace(status), refusal("HTTP" + code)
	}
	return strings.TrimSpace(status), nil
}

// probeSocks: "HOST|PORT" through the SOCKS5 proxy ($ALL_PROXY): an IP
// literal is sent as an address (IPv4 or IPv6), anything else as a name.
func probeSocks(arg string) (string, error) {
	a, err := splitArgs(arg, 2)
	if err != nil {
		return "", err
	}
	port, err := strconv.Atoi(a[1])
	if err != nil {
		return "", err
	}
	c, err := dialProxy("ALL_PROXY")
	if err != nil {
		return "dial proxy", err
	}
	defer c.Close()
	if _, err := c.Write([]byte{5, 1, 0}); err != nil {
		return "", unwrap(err)
	}
	choice := make([]byte, 2)
	if _, err := io.ReadFull(c, choice); err != nil || choice[1] != 0 {
		return fmt.Sprintf("method answer %v", choice), errors.Join(err, refusal("SOCKSAUTH"))
	}
	req := []byte{5, 1, 0}
	if ip, err := netip.ParseAddr(a[0]); err == nil && ip.Is4() {
		b := ip.As4()
		req = append(append(req, 1), b[:]...)
	} else if err == nil {
		b := ip.As16()
		req = append(append(req, 4), b[:]...)
	} else {
		req = append(append(req, 3, byte(len(a[0]))), a[0]...)
	}
	req = binary.BigEndian.AppendUint16(req, uint16(port))
	if _, err := c.Write(req); err != nil {
		return "", unwrap(err)
	}
	head := make([]byte, 4)
	if _, err := io.ReadFull(c, head); err != nil {
		return "no reply", unwrap(err)
	}
	if head[1] != 0 {
		return fmt.Sprintf("reply code %d", head[1]), refusal("SOCKS" + strconv.Itoa(int(head[1])))
	}
	skip := map[byte]int{1: 4, 4: 16}[head[3]]
	if head[3] == 3 {
		l := make([]byte, 1)
		_, _ = io.ReadFull(c, l)
		skip = int(l[0])
	}
	_, _ = io.ReadFull(c, make([]byte, skip+2))
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	return "tunnel open; far end said " + strconv.Quote(readGreeting(c)), nil
}
