//go:build linux

package attack_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// Names the test resolver knows; nothing else is resolved (no real DNS).
const (
	rebindName = "rebind.agentbox-attack.test" // resolves to 127.0.0.1
	peerName   = "peer.agentbox-attack.test"   // resolves to the veth peer
)

// testResolver resolves only the suite's own names.
type testResolver struct{ peer netip.Addr }

func (r testResolver) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	host = strings.TrimSuffix(host, ".") // the proxy asks for rooted names
	switch {
	case host == rebindName:
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	case host == peerName && r.peer.IsValid():
		return []netip.Addr{r.peer}, nil
	case host == "localhost":
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}, nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	return nil, &net.DNSError{Err: "no such host (the test resolver knows only its own names)", Name: host, IsNotFound: true}
}

// countingListener accepts on addr and counts connections.
func countingListener(t *testing.T, network, addr string) (string, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		return "", nil
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return l.Addr().String(), &n
}

// TestEgressProxyHostLoopback attacks the host's loopback through the
// filtered network's egress proxy, which runs on the host: with a policy
// that lists the loopback targets and allows everything else through its
// callback, only the proxy's address guard stands in the way. Every
// spelling of loopback is tried over HTTP CONNECT, plain HTTP and SOCKS5.
// As root, a network namespace with a veth peer at a documentation address
// gives the control that the same proxy does let allowed traffic through.
func TestEgressProxyHostLoopback(t *testing.T) {
	t.Parallel()
	v4, v4hits := countingListener(t, "tcp4", "127.0.0.1:0")
	_, port, _ := net.SplitHostPort(v4)
	v4b, v4bHits := countingListener(t, "tcp4", "127.0.0.2:0")
	v6, v6hits := countingListener(t, "tcp6", "[::1]:0")

	var peer *vethPeer
	if isRoot {
		peer = startVethPeer(t)
	}
	cfg := ciConfig()
	cfg.Network.Mode = agentbox.NetworkFiltered
	cfg.Network.AllowedDomains = []string{"127.0.0.1:*", "localhost:*", rebindName + ":*", "[::1]:*", "0.0.0.0:*", "127.0.0.2:*"}
	if peer != nil {
		// IP literals pass only when listed.
		cfg.Network.AllowedDomains = append(cfg.Network.AllowedDomains, peer.listen)
	}
	cfg.Network.OnRequest = func(context.Context, string, int) (bool, error) { return true, nil }
	var resolver testResolver
	if peer != nil {
		resolver.peer = peer.addr
	}
	cfg.Network.Resolver = resolver
	m := newManager(t, cfg)

	refused := []string{"HTTP403", "HTTP502", "HTTP400", "HTTP407", "HTTP451", "SOCKS2", "SOCKS4", "SOCKS5", "SOCKS8"}
	targets := map[string]string{
		"ipv4":          v4,
		"localhost":     "localhost:" + port,
		"unspecified":   "0.0.0.0:" + port,
		"mapped_ipv6":   "[::ffff:127.0.0.1]:" + port,
		"short_form":    "127.1:" + port,
		"decimal":       "2130706433:" + port,
		"hex":           "0x7f000001:" + port,
		"octal":         "0177.0.0.1:" + port,
		"rebinding":     rebindName + ":" + port,
		"trailing_dot":  "localhost.:" + port,
		"other_127_net": v4b,
	}
	if v6 != "" {
		targets["ipv6"] = v6
	}
	var ps []probe
	for name, target := range targets {
		ps = append(ps, attack("connect_"+name, "proxyconnect:"+target, refused...))
		ps = append(ps, attack("get_"+name, "proxyget:http://"+target+"/", refused...))
		host, p, _ := net.SplitHostPort(target)
		ps = append(ps, attack("socks_"+name, "socks:"+host+"|"+p, refused...))
	}
	ps = append(ps, attack("direct", "tcp:"+v4))
	if peer != nil {
		_, pport, _ := net.SplitHostPort(peer.listen)
		ps = append(ps,
			control("peer_connect", "proxyconnect:"+peer.listen, peerGreeting),
			control("peer_connect_by_name", "proxyconnect:"+peerName+":"+pport, peerGreeting),
			control("peer_socks", "socks:"+peer.addr.String()+"|"+pport, peerGreeting),
		)
	} else {
		t.Log("not root: no veth peer, so no positive control through the proxy (the refusals must still come from the proxy itself)")
	}
	_, res := runProbes(t, m, ps)
	for name, n := range map[string]*atomic.Int64{"127.0.0.1": v4hits, "127.0.0.2": v4bHits, "[::1]": v6hits} {
		if n != nil && n.Load() > 0 {
			t.Errorf("ESCAPE: the host's loopback listener on %s got %d connections through the egress proxy", name, n.Load())
		}
	}
	// The policy let every target through: each refusal must be the
	// guard's (or the proxy's refusal of a target it cannot parse).
	network := 0
	for _, v := range res.Violations {
		if v.Kind != "network" {
			continue
		}
		network++
		if !strings.HasPrefix(v.Rule, "guard:") && v.Rule != "invalid-target" {
			t.Errorf("refusal of %s by rule %q, not by the address guard: the attack did not reach the guard", v.Detail, v.Rule)
		}
	}
	if network == 0 {
		t.Errorf("the proxy's refusals are not reported as network violations: %+v", res.Violations)
	}
}

// peerGreeting is what the veth peer sends on every connection.
const peerGreeting = "hello-from-the-veth-peer"

// peerEnv makes the test binary act as the veth peer: in its own network
// namespace, wait for a line on stdin, then serve TCP on port 8080.
const peerEnv = "AGENTBOX_ATTACK_VETH_PEER"

func runPeer() int {
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		return 1
	}
	l, err := net.Listen("tcp4", "0.0.0.0:8080")
	if err != nil {
		fmt.Println("ERROR", err)
		return 1
	}
	fmt.Println("LISTENING")
	go func() {
		_, _ = in.ReadString('\n') // stdin closed: the test is over
		os.Exit(0)
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			return 1
		}
		fmt.Fprintln(c, peerGreeting)
		c.Close()
	}
}

// vethPeer is a server in a network namespace of the test's own, reached
// over a veth pair at a documentation address (which the proxy's guard
// lets through, unlike private ones).
type vethPeer struct {
	addr   netip.Addr
	listen string
}

func startVethPeer(t *testing.T) *vethPeer {
	t.Helper()
	var b [3]byte
	_, _ = rand.Read(b[:])
	base := int(b[0]%64) * 4 // a /30 inside 203.0.113.0/24 (TEST-NET-3)
	peerAddr := netip.AddrFrom4([4]byte{203, 0, 113, byte(base + 1)})
	hostAddr := netip.AddrFrom4([4]byte{203, 0, 113, byte(base + 2)})
	suffix := fmt.Sprintf("%02x%02x", b[1], b[2])
	hostIf, peerIf := "abxh"+suffix, "abxp"+suffix

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), peerEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("veth peer in a new network namespace: %v", err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = exec.Command("ip", "link", "del", hostIf).Run() // gone with the namespace anyway
	})
	pid := strconv.Itoa(cmd.Process.Pid)
	steps := [][]string{
		{"ip", "link", "add", hostIf, "type", "veth", "peer", "name", peerIf, "netns", pid},
		{"ip", "addr", "add", hostAddr.String() + "/30", "dev", hostIf},
		{"ip", "link", "set", hostIf, "up"},
		{"nsenter", "-t", pid, "-n", "ip", "addr", "add", peerAddr.String() + "/30", "dev", peerIf},
		{"nsenter", "-t", pid, "-n", "ip", "link", "set", peerIf, "up"},
		{"nsenter", "-t", pid, "-n", "ip", "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
			t.Logf("cannot build the veth peer (%v: %v: %s); no positive control", s, err, strings.TrimSpace(string(out)))
			return nil
		}
	}
	if _, err := fmt.Fprintln(stdin, "go"); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "LISTENING" {
		t.Fatalf("veth peer said %q", line)
	}
	// The control of the control: the host reaches the peer directly.
	c, err := net.DialTimeout("tcp4", peerAddr.String()+":8080", 3*time.Second)
	if err != nil {
		t.Fatalf("the host cannot reach its veth peer: %v", err)
	}
	c.Close()
	return &vethPeer{addr: peerAddr, listen: peerAddr.String() + ":8080"}
}
