//go:build linux

package egress_test

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// TestNetGuardLateHostAddress: an address the host gains while a Manager
// lives (DHCP, a VPN, a container bridge coming up) is one of "the host's
// own interface addresses" too, and must be refused like those it had when
// the Manager's first command ran: for a command started after the change
// and for one that was already running. A fresh Manager is the control.
func TestNetGuardLateHostAddress(t *testing.T) {
	inNetns(t)
	// Not parallel: it changes the namespace's addresses.
	pol := netPolicy{allow: []string{"allowed.test", "late.test"}}
	m, r, decisions := newManager(t, pol)
	warm := execIn(t, m, r, decisions, curlArgv("https://allowed.test/late-warmup"))
	if c := warm.curl(t); c.code != "200" {
		t.Fatalf("warm-up request failed\n%s", warm.dump())
	}

	// A command that is running when the address appears: it makes one
	// request, waits for the go file, then asks for late.test.
	goFile := filepath.Join(workDir, "late-go")
	if err := os.Remove(goFile); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(goFile) })
	running, runningR, runningDecisions := newManager(t, pol)
	script := "/usr/bin/curl -sS -o /dev/null http://allowed.test/late-running-1 && " +
		"while [ ! -e " + goFile + " ]; do sleep 0.05; done && " +
		"/usr/bin/curl -sS -o /dev/null -w '%{http_code}' http://late.test/late-running-2"
	type result struct {
		res *agentbox.ExecResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := running.Exec(ctxT(t, 60*time.Second), script, agentbox.WithTimeout(40*time.Second))
		done <- result{res, err}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(runningDecisions()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the running command never reached the proxy")
		}
		time.Sleep(10 * time.Millisecond)
	}

	if err := ipCmd("addr", "add", lateHostAddr+"/32", "dev", hostIf); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ipCmd("addr", "del", lateHostAddr+"/32", "dev", hostIf) })
	hits := listenCounting(t, net.JoinHostPort(lateHostAddr, "80"))
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	want := decisionWant{"http", "late.test", 80, "guard:host-address", lateHostAddr}
	// The running command goes first: its request (made as soon as the go
	// file exists) counts in its own subtest.
	hits.Store(0)
	for _, c := range []struct {
		name string
		run  func() outcome
	}{
		{"running_command", func() outcome {
			res := <-done
			if res.err != nil {
				t.Fatalf("the running command: %v", res.err)
			}
			return outcome{res: res.res, decisions: runningDecisions(), resolver: runningR}
		}},
		{"fresh_manager", func() outcome { return runSandboxed(t, pol, curlArgv("http://late.test/late-fresh")) }},
		{"long_lived_manager", func() outcome { return execIn(t, m, r, decisions, curlArgv("http://late.test/late-old")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := hits.Load()
			o := c.run()
			time.Sleep(20 * time.Millisecond) // let the accept loop count
			if !strings.Contains(o.res.Stdout, "403") || strings.Contains(o.res.Stdout, "upstream") {
				t.Errorf("want a 403 from the proxy\n%s", o.dump())
			}
			o.wantRefused(t, want)
			if n := hits.Load() - before; n != 0 {
				t.Errorf("ESCAPE: the host's own address %s was reached through the proxy (%d connections)", lateHostAddr, n)
			}
		})
	}
}

// TestNetGuardLocalRoute: an address the host's routing delivers locally
// (a "local" route, as AnyIP set-ups and some load balancers add) is the
// host's own although no interface carries it: a service bound to it, or to
// the wildcard address, is a host service, and the guard must refuse it.
// Three kinds of local route: an IPv4 AnyIP range, an IPv4 range with
// another preferred source (the kernel does not answer a packet to it from
// the address itself) and an IPv6 AnyIP range. In the same sandbox an allowed name at a documentation address
// that is not local is still reached.
func TestNetGuardLocalRoute(t *testing.T) {
	inNetns(t)
	// Not parallel: it changes the namespace's routes.
	cases := []struct {
		name    string
		route   []string // "ip" arguments with {add} where add or del goes
		host    string   // resolves into the route
		addr    string
		network string // of the host service
		listen  string
	}{
		{"ipv4_anyip", []string{"route", "{add}", "local", anyIPPrefix, "dev", "lo"},
			"anyip.test", anyIPAddr, "tcp4", net.JoinHostPort(anyIPAddr, "80")},
		{"ipv4_local_route_with_source", []string{"route", "{add}", "local", localSrcPrefix, "dev", "lo", "src", hostAddr},
			"localsrc.test", localSrcAddr, "tcp4", net.JoinHostPort(localSrcAddr, "80")},
		{"ipv6_anyip", []string{"-6", "route", "{add}", "local", anyIP6Prefix, "dev", "lo"},
			"anyip6.test", anyIP6Addr, "tcp6", net.JoinHostPort(anyIP6Addr, "80")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := ipCmd(routeArgs(c.route, "add")...); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ipCmd(routeArgs(c.route, "del")...) })
			hits := listenCountingOn(t, c.network, c.listen)
			// A Manager made after the route, so no staleness is involved.
			path := "/local-route-" + c.name
			o := runSandboxed(t, netPolicy{allow: []string{c.host, "allowed.test"}},
				curlArgv("http://"+c.host+path, "http://allowed.test"+path))
			time.Sleep(20 * time.Millisecond) // let the accept loop count
			codes := curlCodes(o)
			if len(codes) != 2 || codes[0] != "403" {
				t.Errorf("want 403 for %s, got codes %v\n%s", c.host, codes, o.dump())
			}
			o.wantRefused(t, decisionWant{"http", c.host, 80, "guard:host-address", c.addr})
			if n := hits.Load(); n != 0 {
				t.Errorf("ESCAPE: %s, routed to the host itself, was reached through the proxy (%d connections)", c.addr, n)
			}
			// The legitimate upstream, in the same run.
			body := "upstream http " + allowedAddr + ":80 host=allowed.test path=" + path
			if len(codes) != 2 || codes[1] != "200" || !strings.Contains(o.res.Stdout, body) {
				t.Errorf("want 200 with %q from allowed.test, got codes %v\n%s", body, codes, o.dump())
			}
			if !slices.ContainsFunc(o.decisions, func(d agentbox.NetworkDecision) bool {
				return d.Allowed && decisionWant{"http", "allowed.test", 80, "allow:allowed.test", allowedAddr}.match(d)
			}) {
				t.Errorf("allowed.test was not allowed\n%s", o.dump())
			}
		})
	}
}

// routeArgs fills the add or del verb into an "ip route" argument list.
func routeArgs(route []string, verb string) []string {
	out := slices.Clone(route)
	out[slices.Index(out, "{add}")] = verb
	return out
}

// curlCodes returns the %{http_code} of every transfer of a curlArgv run,
// in order.
func curlCodes(o outcome) []string {
	var codes []string
	for _, line := range strings.Split(o.res.Stdout, "\n") {
		if rest, ok := strings.CutPrefix(line, "@@curl code="); ok {
			codes = append(codes, strings.Fields(rest)[0])
		}
	}
	return codes
}
