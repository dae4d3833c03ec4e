//go:build linux

package egress_test

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestNetProxyNotOnHost: the proxy's listening socket lives in the
// sandbox's network namespace, so no other process of the host can use the
// proxy (and borrow the sandbox's allow-list), even while a sandbox is
// running and using it.
func TestNetProxyNotOnHost(t *testing.T) {
	inNetns(t)
	t.Parallel()
	m, _, decisions := newManager(t, netPolicy{allow: []string{"allowed.test"}})
	done := make(chan error, 1)
	go func() {
		res, err := m.Exec(ctxT(t, 30*time.Second),
			"/usr/bin/curl -sS -o /dev/null http://allowed.test/ping-while-running && sleep 2")
		if err == nil && res.ExitCode != 0 {
			err = errors.New("the sandboxed command failed: " + res.Stderr)
		}
		done <- err
	}()
	// Wait until the sandbox has used its proxy: it is up and serving.
	deadline := time.Now().Add(20 * time.Second)
	for len(decisions()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the sandboxed command never reached the proxy")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, addr := range []string{"127.0.0.1:3128", hostAddr + ":3128", "[::1]:3128"} {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			t.Errorf("ESCAPE: a host process reached a proxy at %s", addr)
			continue
		}
		if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.EADDRNOTAVAIL) {
			t.Errorf("dial %s: %v, want connection refused", addr, err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d := decisions(); len(d) != 1 || !d[0].Allowed {
		t.Errorf("decisions %+v, want the one allowed request", d)
	}
}
