package egress

import (
	"bytes"
	"io"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestRedteam39TinyRecordHelloHeld attacks the agentbox process's memory
// through the first-flight inspection of a CONNECT tunnel (readHelloRecords).
// A sandboxed program opens many tunnels to any allowed host and sends, as its
// first flight, a ClientHello that declares the largest accepted length
// (tlsMaxHelloLen, 64 KiB) split into one-byte handshake records, never
// finishing it. Every record costs 5 bytes of header and one of message,
// and the proxy keeps both (raw, to forward the flight as sent, and msg, to
// parse), grown by append: ~6×64 KiB of raw plus 64 KiB of message, with
// doubling slack, per tunnel for the whole handshake timeout (10 s), after
// which the program reopens them. No upstream cooperation is needed (the
// hello is read before a byte goes upstream). Up to MaxTunnels (1024) × ~0.5
// MiB of Go heap in agentbox, charged to no sandbox, where the README reports
// ~14–16 KB per tunnel and documents no per-tunnel hello buffer.
//
// Severity: low/medium (bounded per proxy, ~0.5 GiB; one proxy per filtered
// command of a Manager, so concurrent commands multiply it).
// Found by red-team round 39; fixed: the bytes of
// first flights under inspection are charged to a budget per proxy
// (Config.MaxInspectedBytes), and a tunnel that would pass it is closed
// (limit:inspected-bytes). The test sets a small budget and checks the
// heap's growth stays within what it allows.
//
// Control: a CONNECT to the allowed host still succeeds beside them.
func TestRedteam39TinyRecordHelloHeld(t *testing.T) {
	// A long handshake limit only keeps the slow -race set-up within it: the
	// bytes held per tunnel do not depend on it.
	const budget = 256 << 10
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}, HandshakeTimeout: 60 * time.Second, MaxInspectedBytes: budget})
	front := tcpServer(t, func(c net.Conn) {
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		_, _ = io.Copy(io.Discard, c)
	})
	h.dial.route(ap(addrAllowed, 443), front)

	const tunnels = 32

	// A hello header declaring tlsMaxHelloLen-4 bytes of body, then body
	// bytes, each in a record of its own; the last byte is never sent.
	msg := append([]byte{tlsHandshakeHello, 0, 0xff, 0xfc}, bytes.Repeat([]byte{0x03}, tlsMaxHelloLen-4-1)...)
	var flight bytes.Buffer
	for _, b := range msg {
		flight.Write([]byte{0x16, 3, 1, 0, 1, b})
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	before := rt39Heap() // after the test's own flight is built
	start := time.Now()
	for i := 0; i < tunnels; i++ {
		c, _ := rt39Connect(t, h.addr, 30*time.Second)
		conns = append(conns, c)
	}
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { _, _ = c.Write(flight.Bytes()) })
	}
	wg.Wait()
	// A written flight may still sit in the socket buffers: wait until the
	// proxy has read it (the heap stops growing), or the bound is passed.
	during := rt39Heap()
	for deadline := time.Now().Add(40 * time.Second); time.Now().Before(deadline); {
		time.Sleep(time.Second)
		now := rt39Heap()
		if now <= during+during/50 || (int64(now)-int64(before))/tunnels > 64<<10 && now <= during+during/10 {
			during = max(now, during)
			break
		}
		during = now
	}
	elapsed := time.Since(start)
	grown := int64(during) - int64(before)
	t.Logf("%d tunnels in %v: Go heap %d -> %d KiB (+%d KiB, %d KiB per tunnel), goroutines %d",
		tunnels, elapsed, before>>10, during>>10, grown>>10, grown/tunnels>>10, runtime.NumGoroutine())

	c, _ := rt39Connect(t, h.addr, 10*time.Second) // the control: a tunnel beside the held ones
	_ = c.Close()

	if elapsed < 50*time.Second {
		// The budget, the parse's copies and append's slack (at most
		// thrice the budget again), and what a tunnel, its refusal and the
		// test's own side of it cost.
		if bound := int64(4*budget + tunnels*64<<10); grown > bound {
			t.Errorf("%d tunnels whose first flight is a 64 KiB hello in one-byte records hold +%d KiB of agentbox's heap (%d KiB per tunnel), "+
				"past %d KiB: the first flights' budget (%d KiB) does not bound them", tunnels, grown>>10, grown/tunnels>>10, bound>>10, budget>>10)
		}
	} else {
		t.Logf("setting up took %v, past the handshake timeout: growth not judged", elapsed)
	}
}
