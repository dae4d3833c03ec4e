//go:build linux

package attack_test

import (
	"os"
	"strings"
	"testing"
)

// reducedNetworkEnv, when set, is the network mode of runReduced's run.
const reducedNetworkEnv = "AGENTBOX_ATTACK_REDUCED_NETWORK"

// TestRedteam19ReducedTierMPTCP attacks the reduced tier's network, which
// has no network namespace: Landlock refuses every TCP connect (blocked,
// and filtered, which "becomes no network") and seccomp leaves only
// SOCK_STREAM sockets of AF_INET and AF_INET6. But seccomp does not look
// at the protocol, and Landlock's TCP rules apply to IPPROTO_TCP sockets
// only: socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP) connects to any TCP
// server (MPTCP falls back to plain TCP), here the host's loopback, and so
// to anything the host reaches. The control is that a plain TCP connect
// to the same service is refused, and that a TCP socket can be made.
//
// Fixed: where seccomp leaves TCP to Landlock (streamOnly), a stream
// socket's protocol must be 0 or IPPROTO_TCP (EPROTONOSUPPORT otherwise).
func TestRedteam19ReducedTierMPTCP(t *testing.T) {
	if isRoot {
		t.Skip("the reduced tier refuses root (TestReducedTier)")
	}
	if b, err := os.ReadFile("/proc/sys/net/mptcp/enabled"); err != nil || strings.TrimSpace(string(b)) != "1" {
		t.Skip("MPTCP is not enabled on this machine")
	}
	t.Parallel()
	for _, mode := range []string{"blocked", "filtered"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			host := newHostListeners(t)
			ps := []probe{
				reducedTCPSocket(),
				attack("host_loopback_tcp", "tcpproto:tcp:"+host.tcp),
				attack("host_loopback_mptcp", "tcpproto:mptcp:"+host.tcp),
			}
			if host.tcp6 != "" {
				ps = append(ps, attack("host_loopback_mptcp6", "tcpproto:mptcp:"+host.tcp6))
			}
			refused, res := runBinInChild(t, "no-capabilities", false, "", attackerBin, probeArgs(ps),
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
			host.expectUntouched(t)
		})
	}
}
