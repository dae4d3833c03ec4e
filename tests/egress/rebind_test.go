//go:build linux

package egress_test

import (
	"strings"
	"testing"
)

// TestNetRebinding: the proxy resolves a name once per request and dials
// the very address the guard checked. Against a name whose answer flips
// between a good and a loopback address on every lookup, a check-then-
// resolve-again proxy would dial the loopback service; this one either
// reaches the good address or refuses, with one lookup.
func TestNetRebinding(t *testing.T) {
	inNetns(t)
	t.Parallel()
	t.Run("good_first", func(t *testing.T) {
		t.Parallel()
		name := "rebind-good-first.test"
		o := runSandboxed(t, netPolicy{allow: []string{name}}, curlArgv("http://"+name+"/rebind"))
		if r := o.curl(t); r.code != "200" || !strings.Contains(r.body, "upstream http "+allowedAddr+":80 host="+name) {
			t.Errorf("want the good address's answer\n%s", o.dump())
		}
		o.wantAllowed(t, decisionWant{"http", name, 80, "allow:" + name, allowedAddr})
		if n := o.resolver.count(name); n != 1 {
			t.Errorf("%d lookups for one request, want 1", n)
		}
		expectUnreached(t, "127.0.0.1:80")
	})
	t.Run("bad_first", func(t *testing.T) {
		t.Parallel()
		name := "rebind-bad-first.test"
		o := runSandboxed(t, netPolicy{allow: []string{name}}, curlArgv("http://"+name+"/rebind"))
		if r := o.curl(t); r.code != "403" || strings.Contains(r.body, "upstream ") {
			t.Errorf("want 403\n%s", o.dump())
		}
		o.wantNoneAllowed(t)
		o.wantRefused(t, decisionWant{"http", name, 80, "guard:loopback", "127.0.0.1"})
		if n := o.resolver.count(name); n != 1 {
			t.Errorf("%d lookups for one request, want 1", n)
		}
		expectUnreached(t, "127.0.0.1:80")
	})
}
