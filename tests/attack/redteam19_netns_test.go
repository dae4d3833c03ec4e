//go:build linux

package attack_test

import (
	"strconv"
	"testing"

	"github.com/agentbox-dev/agentbox"
	"github.com/agentbox-dev/agentbox/sandbox/proxyaddr"
)

// TestRedteam19FilteredProxyPort attacks the filtered network from inside:
// the egress proxy listens on 127.0.0.1:3128 in the sandbox's own network
// namespace, on a socket agentbox serves from the host. A program tries to
// take the port over (a second listener with SO_REUSEADDR and SO_REUSEPORT
// on the same address, the wildcard, a dual-stack IPv6 wildcard), to add
// an address to the loopback device over rtnetlink, and to make an ICMP
// ping socket. The controls: the proxy still answers afterwards (it
// refuses a CONNECT to a host off the empty allow-list with 403, the
// proxy's own refusal), and a listener on another port works.
func TestRedteam19FilteredProxyPort(t *testing.T) {
	t.Parallel()
	port := strconv.Itoa(proxyaddr.Port)
	ps := []probe{
		control("own_listener_other_port", "bindreuse:127.0.0.1:3129", "listening"),
		attack("take_proxy_port", "bindreuse:127.0.0.1:"+port, "EADDRINUSE"),
		attack("take_proxy_port_wildcard", "bindreuse:0.0.0.0:"+port, "EADDRINUSE"),
		attack("take_proxy_port_dualstack", "bindreuse:[::]:"+port, "EADDRINUSE"),
		attack("netlink_add_address", "nladdr:192.0.2.7", "EPERM"),
		attack("ping_socket", "pingsock"),
		attack("proxy_still_refuses", "proxyconnect:example.invalid:443", "HTTP403"),
	}
	o, res := runProbes(t, ciMgr, ps, agentbox.WithNetwork(agentbox.NetworkFiltered))
	t.Logf("layers %q\nattacker output:\n%s", res.Layers, res.Stdout)
	checkProbes(t, o, ps)
}
