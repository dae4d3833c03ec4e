//go:build linux

package attack_test

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRedteam22ReducedTierListenWithoutBind opens an inbound network
// channel from the reduced tier, whose "blocked" and "filtered" networks
// both mean no network at all there (no network namespace: Landlock
// refuses every TCP bind and connect, seccomp every other socket kind).
// The program calls listen(2) on a TCP socket it never bound: the kernel
// binds it itself (inet_autobind) to an ephemeral port on the wildcard
// address, and Landlock's LANDLOCK_ACCESS_NET_BIND_TCP is checked only in
// bind(2) (the socket_bind hook), not on this implicit bind; nor is
// accept(2) checked by anything. The socket listens on [::]:PORT, every
// interface of the host, dual-stack. Any host process, and any machine
// that reaches the host (no firewall on a developer's LAN, a cloud VM with
// the ephemeral range open), can connect and exchange data both ways with
// the sandboxed program: here a host process does, over 127.0.0.1. A
// confederate outside scans the 28,000 ephemeral ports, or the program
// re-listens until it draws a port agreed beforehand. The control beside
// it: an explicit bind(2), to port 0 as well, is refused by Landlock, and
// a TCP socket can be made.
//
// Why it matters: invariant 2 (no network but the proxy) is broken in the
// reduced tier with a network policy of none: a hostile program can serve
// what it may read (the project's sources, readable host files) to the
// outside, and take commands from it. The README says only that the
// reduced tier's TCP is "limited by port only".
//
// Severity: medium (reduced tier only: unprivileged callers under the warn
// fallback where user namespaces are unavailable; needs an inbound path to
// the host). The full tier's listener is in the sandbox's own network
// namespace and unreachable.
//
// Fix: Landlock has no right for listen(2) yet (a LANDLOCK_ACCESS_NET_LISTEN_TCP
// has been proposed upstream). Where seccomp leaves TCP to Landlock
// (streamOnly, sandbox/linux/seccomp.go), refuse listen(2) (and so
// accept on a listener): bind(2) is refused there already, so no server
// works in the reduced tier anyway; and say so in the README.
//
// Fixed: in the reduced tier without a network, seccomp refuses listen(2)
// (EPERM) while unix sockets are refused; where they are allowed (Landlock
// ABI 9 confines them, or the policy allows them) unix servers need
// listen(2), and TCP sockets are refused at creation instead
// (sandbox/linux/seccomp_net.go, see reducedTCPSocket).
func TestRedteam22ReducedTierListenWithoutBind(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier)")
	}
	t.Parallel()
	for _, mode := range []string{"blocked", "filtered"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			w := newDir(t, 0o755)
			portFile := filepath.Join(w, "port")
			// The outside peer: waits for the port, connects, says hello.
			type peerResult struct {
				connected bool
				reply     string
				err       error
			}
			peer := make(chan peerResult, 1)
			go func() {
				deadline := time.Now().Add(60 * time.Second)
				for time.Now().Before(deadline) {
					b, err := os.ReadFile(portFile)
					if err != nil {
						time.Sleep(50 * time.Millisecond)
						continue
					}
					c, err := net.DialTimeout("tcp4", "127.0.0.1:"+strings.TrimSpace(string(b)), 5*time.Second)
					if err != nil {
						peer <- peerResult{err: err}
						return
					}
					defer c.Close()
					_ = c.SetDeadline(time.Now().Add(10 * time.Second))
					_, _ = c.Write([]byte("hello from outside the sandbox\n"))
					line, _ := bufio.NewReader(c).ReadString('\n')
					peer <- peerResult{connected: true, reply: line}
					return
				}
				peer <- peerResult{}
			}()
			ps := []probe{
				control("write_root", "write:"+w+"/ok", ""),
				reducedTCPSocket(),
				attack("bind_any_port", "bindreuse:0.0.0.0:0"),
				attack("listen_unbound", "listenauto:"+portFile),
			}
			refused, res := runBinInChild(t, "no-capabilities", false, w, attackerBin, probeArgs(ps),
				reducedNetworkEnv+"="+mode)
			if res == nil {
				t.Fatalf("agentbox refused: %s", refused)
			}
			o := parseOutput(res.Stdout)
			if !o.started || !o.done {
				t.Fatalf("attacker run incomplete (exit %d)\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
			}
			t.Logf("layers %q\nattacker output:\n%s", res.Layers, res.Stdout)
			checkProbes(t, o, ps)
			select {
			case r := <-peer:
				if r.connected {
					t.Errorf("ESCAPE: a host process connected to the sandbox's listener and got %q back", r.reply)
				}
			case <-time.After(5 * time.Second):
			}
		})
	}
}

// reducedTCPSocket is the reduced tier's control that a TCP socket can be
// made without a network (connect and bind are refused later, by
// Landlock). Where Landlock confines unix sockets (ABI 9), unix servers
// keep listen(2), and the tier refuses TCP sockets outright instead, so
// there it is an attack (TestRedteam22ReducedTierListenWithoutBind).
func reducedTCPSocket() probe {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno == 0 && abi >= 9 {
		return attack("tcp_socket", "socket:inet:stream", "EAFNOSUPPORT")
	}
	return control("tcp_socket", "socket:inet:stream", "")
}
