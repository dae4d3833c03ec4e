//go:build linux

package egress_test

import (
	"net"
	"os"
	"path/filepath"
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
// 0.0.0.0, is a host service, and the guard must refuse it.
func TestNetGuardLocalRoute(t *testing.T) {
	inNetns(t)
	// Not parallel: it changes the namespace's routes.
	if err := ipCmd("route", "add", "local", anyIPPrefix, "dev", "lo"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ipCmd("route", "del", "local", anyIPPrefix, "dev", "lo") })
	hits := listenCounting(t, net.JoinHostPort(anyIPAddr, "80"))
	// A Manager made after the route, so no staleness is involved.
	o := runSandboxed(t, netPolicy{allow: []string{"anyip.test"}}, curlArgv("http://anyip.test/local-route"))
	time.Sleep(20 * time.Millisecond) // let the accept loop count
	if r := o.curl(t); r.code != "403" {
		t.Errorf("want 403, got code %s\n%s", r.code, o.dump())
	}
	o.wantRefused(t, decisionWant{"http", "anyip.test", 80, "", anyIPAddr})
	if n := hits.Load(); n != 0 {
		t.Errorf("ESCAPE: %s, routed to the host itself, was reached through the proxy (%d connections)", anyIPAddr, n)
	}
}
