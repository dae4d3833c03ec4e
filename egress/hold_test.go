package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBodyBudget: bytes are taken up to the maximum, a taker waits for a
// release, and gives up after its wait.
func TestBodyBudget(t *testing.T) {
	t.Parallel()
	b := newByteBudget(100)
	ctx := context.Background()
	cases := []struct {
		name string
		n    int64
		want bool
	}{
		{"fits", 60, true},
		{"fills", 40, true},
		{"over, gives up", 1, false},
		{"more than the maximum", 101, false},
	}
	for _, c := range cases {
		if got := b.acquire(ctx, c.n, 20*time.Millisecond); got != c.want {
			t.Fatalf("%s: acquire(%d) = %v", c.name, c.n, got)
		}
	}
	done := make(chan bool)
	go func() { done <- b.acquire(ctx, 50, 5*time.Second) }()
	time.Sleep(20 * time.Millisecond)
	b.release(60)
	if !<-done {
		t.Fatal("a waiting acquire did not get released bytes")
	}
	if got := b.inUse(); got != 90 {
		t.Fatalf("in use %d, want 90", got)
	}
}

// heldEnv is a proxy with a credential, a budget of heldBudget bytes and
// third.test (plain HTTP, no credential) allowed.
const heldBudget = 8 << 20

func newHeldEnv(t *testing.T) *credEnv {
	return newCredEnv(t, func(c *Config) {
		c.MaxHeldBodyBytes = heldBudget
		c.HandshakeTimeout = 3 * time.Second
	})
}

// postHead is a plain-HTTP proxy request head for a body of n bytes.
func postHead(host string, n int) string {
	return fmt.Sprintf("POST http://%s/upload HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n", host, host, n)
}

// TestHeldBodiesBounded attacks the proxy's memory as memdos.py did: many
// connections each announce a body of maxHeldBody bytes and send all but
// its last byte. The bodies the proxy holds stay within its budget (the
// Go heap grows by about that much, not by one body per connection); the
// requests beyond it are refused with 503 limit:held-bodies, each with a
// decision.
func TestHeldBodiesBounded(t *testing.T) {
	// Not parallel: it measures the process's heap.
	e := newHeldEnv(t)
	const conns = 96
	payload := []byte(strings.Repeat("A", maxHeldBody-1))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	var wg sync.WaitGroup
	var refused, other atomic.Int64
	for range conns {
		c, err := net.DialTimeout("tcp", e.h.addr, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		_ = c.SetDeadline(time.Now().Add(15 * time.Second))
		wg.Go(func() {
			go func() { _, _ = io.WriteString(c, postHead("third.test", maxHeldBody)); _, _ = c.Write(payload) }()
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			switch {
			case err != nil: // a held body whose client never finished: closed
			case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("X-Agentbox-Deny") == RuleLimitHeldBodies:
				refused.Add(1)
			default:
				other.Add(1)
			}
		})
	}
	// Sample the heap while the bodies arrive and are held.
	var peak uint64
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
		if used := e.h.p.bodies.inUse(); used > heldBudget {
			t.Fatalf("%d bytes held, over the budget of %d", used, heldBudget)
		}
	}
	wg.Wait()

	growth := int64(peak) - int64(before.HeapAlloc)
	// The budget, plus per connection the proxy's and the upstream's
	// buffers (a leak scanner of 32 KiB, a few bufio readers).
	bound := int64(heldBudget + conns*96<<10 + 8<<20)
	t.Logf("heap grew by %d MiB at most (bound %d MiB; one body per connection would be %d MiB); %d refused",
		growth>>20, bound>>20, conns*maxHeldBody>>20, refused.Load())
	if growth > bound {
		t.Errorf("the heap grew by %d MiB with %d connections holding bodies, over the bound of %d MiB", growth>>20, conns, bound>>20)
	}
	if other.Load() != 0 {
		t.Errorf("%d connections got an answer other than 503 %s", other.Load(), RuleLimitHeldBodies)
	}
	// How many of the requests beyond the budget get their 503 before their
	// own deadline closes them depends on the machine's load; some must.
	if refused.Load() == 0 {
		t.Errorf("none of the %d requests beyond the budget was refused with 503", conns-heldBudget/maxHeldBody)
	}
	if got := int64(len(e.decisionsWith(RuleLimitHeldBodies))); got != refused.Load() {
		t.Errorf("%d decisions with %s for %d refusals", got, RuleLimitHeldBodies, refused.Load())
	}
	if used := e.h.p.bodies.inUse(); used != 0 {
		t.Errorf("%d bytes still held after every connection ended", used)
	}
}

// TestRefusedBodyNotRead: a request the policy or the guard refuses is
// answered at once, before its client sends a byte of the body it
// announced, and leaves a decision; nothing is held for it.
func TestRefusedBodyNotRead(t *testing.T) {
	t.Parallel()
	e := newHeldEnv(t)
	e.h.res.mu.Lock()
	e.h.res.answers["loop.test"] = e.h.res.answers["rebind.test"] // 127.0.0.1
	e.h.res.mu.Unlock()
	cases := []struct {
		name, host, rule string
	}{
		{"not allowed", "denied.test", RuleDefaultDeny},
		{"guard", "127.0.0.1", "guard:loopback"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn := mustDialProxy(t, e.h.addr)
			if _, err := io.WriteString(conn, postHead(c.host, maxHeldBody)); err != nil {
				t.Fatal(err)
			}
			_ = conn.SetReadDeadline(time.Now().Add(time.Second)) // well within the handshake timeout
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer while the body is unsent: %v", err)
			}
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Agentbox-Deny") != c.rule {
				t.Fatalf("got %d %q, want 403 %s", resp.StatusCode, resp.Header.Get("X-Agentbox-Deny"), c.rule)
			}
			if len(e.decisionsWith(c.rule)) == 0 {
				t.Errorf("no decision with rule %s", c.rule)
			}
			if used := e.h.p.bodies.inUse(); used != 0 {
				t.Errorf("%d bytes held for a refused request", used)
			}
		})
	}
}

// TestHeldBudgetBelowOneBody: a budget smaller than the largest body held
// whole would answer every such body 503, and one for first flights
// smaller than twice the largest ClientHello would close tunnels of
// well-behaved clients; New refuses both.
func TestHeldBudgetBelowOneBody(t *testing.T) {
	policy := Policy{Allowed: []string{"x.test"}}
	for _, tt := range []struct {
		field      string
		below, min Config
	}{
		{"MaxHeldBodyBytes", Config{Policy: policy, MaxHeldBodyBytes: maxHeldBody - 1}, Config{Policy: policy, MaxHeldBodyBytes: maxHeldBody}},
		{"MaxInspectedBytes", Config{Policy: policy, MaxInspectedBytes: minInspectedBytes - 1}, Config{Policy: policy, MaxInspectedBytes: minInspectedBytes}},
	} {
		if _, err := New(tt.below); err == nil || !strings.Contains(err.Error(), tt.field) {
			t.Errorf("New with %s below its least: %v", tt.field, err)
		}
		if _, err := New(tt.min); err != nil {
			t.Errorf("New with %s at its least: %v", tt.field, err)
		}
	}
}

// TestHeldBodyWaiterLeavesWithClient: a request that waits for room to
// hold its body while the budget is full ends as soon as its client hangs
// up, not at the handshake timeout, takes nothing from the budget and sends
// nothing upstream, whether it came as a proxy request or through a
// tunnel (plain HTTP or intercepted).
func TestHeldBodyWaiterLeavesWithClient(t *testing.T) {
	const handshake = 10 * time.Second
	body := strings.Repeat("A", 1000)
	request := func(w io.Writer, target, host string) {
		t.Helper()
		if _, err := fmt.Fprintf(w, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n%s", target, host, len(body), body); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, host string
		send       func(t *testing.T, e *credEnv) io.Closer // sends the request, returns the client
	}{
		{"proxy request", "third.test", func(t *testing.T, e *credEnv) io.Closer {
			c := mustDialProxy(t, e.h.addr)
			request(c, "http://third.test/upload", "third.test")
			return c
		}},
		{"plain HTTP tunnel", "third.test", func(t *testing.T, e *credEnv) io.Closer {
			c, resp := openConnect(t, e.h.addr, "third.test:80")
			if c == nil {
				t.Fatalf("CONNECT refused: %d", resp.StatusCode)
			}
			request(c, "/upload", "third.test")
			return c
		}},
		{"intercepted tunnel", "api.test", func(t *testing.T, e *credEnv) io.Closer {
			tc, _ := e.interceptedConn(t, "api.test:443")
			request(tc, "/upload", "api.test")
			return tc
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newCredEnv(t, func(c *Config) {
				c.MaxHeldBodyBytes = heldBudget
				c.HandshakeTimeout = handshake
			})
			budget := e.h.p.bodies
			if !budget.acquire(context.Background(), heldBudget, 0) {
				t.Fatal("could not fill the budget")
			}
			client := c.send(t, e)
			time.Sleep(300 * time.Millisecond) // the request reaches the budget and waits
			start := time.Now()
			_ = client.Close()
			for e.h.p.Stats().ActiveTunnels != 0 {
				if time.Since(start) > handshake/4 {
					t.Fatalf("the request still waits %v after its client left", time.Since(start))
				}
				time.Sleep(5 * time.Millisecond)
			}
			t.Logf("the request ended %v after its client left", time.Since(start))
			if got := budget.inUse(); got != heldBudget {
				t.Errorf("%d bytes in use after the waiter left, want the %d it did not take", got, heldBudget)
			}
			budget.release(heldBudget)
			if got := budget.inUse(); got != 0 {
				t.Errorf("%d bytes in use after the budget was given back", got)
			}
			if n := len(e.up[c.host].all()); n != 0 {
				t.Errorf("%d requests reached %s", n, c.host)
			}
		})
	}
}
