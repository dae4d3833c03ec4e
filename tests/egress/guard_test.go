//go:build linux

package egress_test

import (
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

// TestNetGuardLateHostAddress: an address the host gains while a Manager
// lives (DHCP, a VPN, a container bridge coming up) is one of "the host's
// own interface addresses" too, and must be refused like those it had when
// the Manager's first command ran. A fresh Manager is the control.
func TestNetGuardLateHostAddress(t *testing.T) {
	inNetns(t)
	// Not parallel: it changes the namespace's addresses.
	pol := netPolicy{allow: []string{"allowed.test", "late.test"}}
	m, r, decisions := newManager(t, pol)
	warm := execIn(t, m, r, decisions, curlArgv("https://allowed.test/late-warmup"))
	if c := warm.curl(t); c.code != "200" {
		t.Fatalf("warm-up request failed\n%s", warm.dump())
	}

	if err := ipCmd("addr", "add", lateHostAddr+"/32", "dev", hostIf); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ipCmd("addr", "del", lateHostAddr+"/32", "dev", hostIf) })
	l, err := net.Listen("tcp4", net.JoinHostPort(lateHostAddr, "80"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var hits atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			c.Close()
		}
	}()

	for _, c := range []struct {
		name string
		run  func() outcome
	}{
		{"fresh_manager", func() outcome { return runSandboxed(t, pol, curlArgv("http://late.test/late-fresh")) }},
		{"long_lived_manager", func() outcome { return execIn(t, m, r, decisions, curlArgv("http://late.test/late-old")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := hits.Load()
			o := c.run()
			cr := o.curl(t)
			if cr.code != "403" || strings.Contains(cr.body, "upstream") {
				t.Errorf("want 403, got code %s", cr.code)
			}
			o.wantRefused(t, decisionWant{"http", "late.test", 80, "guard:host-address", lateHostAddr})
			if n := hits.Load() - before; n != 0 {
				t.Errorf("ESCAPE: the host's own address %s was reached through the proxy (%d connections)", lateHostAddr, n)
			}
		})
	}
}
