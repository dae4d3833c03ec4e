package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime"
	"testing"
	"time"
)

// benchProxy starts a proxy that allows bench.test and routes its address
// (port 7000) to upstream.
func benchProxy(b *testing.B, upstream string, policy Policy) string {
	b.Helper()
	res := &fakeResolver{answers: map[string][]netip.Addr{"bench.test": {addrAllowed}}}
	dial := &redirectDialer{}
	dial.route(ap(addrAllowed, 7000), upstream)
	p, err := New(Config{Policy: policy, Resolver: res, Dial: dial.Dial, Guard: NewGuard()})
	if err != nil {
		b.Fatal(err)
	}
	return serveBench(b, p)
}

// tunnelTo opens a CONNECT tunnel to bench.test:7000.
func tunnelTo(b testing.TB, proxyAddr string) net.Conn {
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		b.Fatal(err)
	}
	io.WriteString(c, "CONNECT bench.test:7000 HTTP/1.1\r\n\r\n")
	br := bufio.NewReaderSize(c, 64)
	resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("CONNECT: %v %v", resp, err)
	}
	if br.Buffered() != 0 {
		b.Fatal("unexpected bytes after 200")
	}
	return c
}

const benchChunk = 8 << 20 // bytes per measured transfer

// sinkServer reads benchChunk bytes, answers one byte, and repeats.
func sinkServer(b testing.TB) string {
	return tcpServer(b, func(c net.Conn) {
		buf := make([]byte, 256<<10)
		for {
			for left := benchChunk; left > 0; {
				n, err := c.Read(buf[:min(len(buf), left)])
				if err != nil {
					return
				}
				left -= n
			}
			if _, err := c.Write([]byte{1}); err != nil {
				return
			}
		}
	})
}

// transfer sends benchChunk bytes and waits for the ack; it returns the
// wall time and the CPU time the whole process (client, proxy and server
// alike) spent on it.
func transfer(b *testing.B, c net.Conn, buf []byte) (wall, cpu time.Duration) {
	start, cpu0 := time.Now(), processCPU()
	for left := benchChunk; left > 0; {
		n, err := c.Write(buf[:min(len(buf), left)])
		if err != nil {
			b.Fatal(err)
		}
		left -= n
	}
	var ack [1]byte
	if _, err := io.ReadFull(c, ack[:]); err != nil {
		b.Fatal(err)
	}
	return time.Since(start), processCPU() - cpu0
}

// bareRelay is the least a forwarder can do: accept, dial target, and
// io.Copy both ways (splice(2) between TCP sockets), with no policy,
// parsing or timeouts.
func bareRelay(b testing.TB, target string) string {
	return tcpServer(b, func(c net.Conn) {
		up, err := net.Dial("tcp", target)
		if err != nil {
			return
		}
		defer up.Close()
		go func() {
			_, _ = io.Copy(c, up)
			_ = c.Close()
		}()
		_, _ = io.Copy(up, c)
	})
}

// benchPayload returns n bytes of a protocol the proxy splices without
// reading it as HTTP or TLS (an SSH banner, then bytes of every value):
// zeros would be refused as a control byte before a request line.
func benchPayload(n int) []byte {
	buf := make([]byte, n)
	k := copy(buf, "SSH-2.0-bench\r\n")
	for i := k; i < n; i++ {
		buf[i] = byte(i * 131)
	}
	return buf
}

// BenchmarkTunnelThroughput moves the same bytes over a direct loopback
// connection, through a CONNECT tunnel and through a bare relay, in turn,
// and reports the rates, the tunnel's ratio to direct (target ≥ 0.80) and
// to the bare relay, and the CPU time each path costs per GiB. On a machine
// with fewer idle cores than busy parties (client, proxy, server), the
// rate ratio follows the CPU ratio.
func BenchmarkTunnelThroughput(b *testing.B) {
	sink := sinkServer(b)
	proxyAddr := benchProxy(b, sink, Policy{Allowed: []string{"bench.test:7000"}})
	direct, err := net.Dial("tcp", sink)
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()
	relay, err := net.Dial("tcp", bareRelay(b, sink))
	if err != nil {
		b.Fatal(err)
	}
	defer relay.Close()
	tunnel := tunnelTo(b, proxyAddr)
	defer tunnel.Close()
	paths := []net.Conn{direct, tunnel, relay}
	buf := benchPayload(256 << 10)
	for _, c := range paths {
		transfer(b, c, buf) // warm up
	}
	var wall, cpu [3]time.Duration
	b.SetBytes(3 * benchChunk)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range paths {
			j := (i + k) % len(paths) // rotate the order
			dw, dc := transfer(b, paths[j], buf)
			wall[j] += dw
			cpu[j] += dc
		}
	}
	b.StopTimer()
	mib := float64(b.N) * benchChunk / (1 << 20)
	for j, name := range []string{"direct", "tunnel", "relay"} {
		b.ReportMetric(mib/wall[j].Seconds(), name+"-MiB/s")
		b.ReportMetric(cpu[j].Seconds()*1000*1024/mib, name+"-cpu-ms/GiB")
	}
	b.ReportMetric(wall[0].Seconds()/wall[1].Seconds(), "tunnel/direct")
	b.ReportMetric(wall[2].Seconds()/wall[1].Seconds(), "tunnel/relay")
}

// BenchmarkDecision measures the policy and guard work of one decision for
// a name among a hundred patterns (resolution is an in-memory answer).
func BenchmarkDecision(b *testing.B) {
	policy := Policy{Denied: []string{"evil.example"}}
	for i := range 100 {
		policy.Allowed = append(policy.Allowed, fmt.Sprintf("host%d.example", i), fmt.Sprintf("*.zone%d.example", i))
	}
	rs, err := compilePolicy(policy)
	if err != nil {
		b.Fatal(err)
	}
	p := &Proxy{rules: rs, guard: NewGuard()}
	answer := []netip.Addr{addrAllowed, netip.MustParseAddr("2001:db8::10")}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		t, err := parseHostPort("api.v1.zone57.example:443", 0)
		if err != nil {
			b.Fatal(err)
		}
		if v := rs.decide(ctx, t); !v.allowed {
			b.Fatal(v)
		}
		if ok, _, _ := p.screen(answer, 443); len(ok) != 2 {
			b.Fatal("screened out")
		}
	}
}

// BenchmarkConnectLatency compares opening a connection and echoing one
// byte directly with doing the same through a CONNECT tunnel, and reports
// the time the proxy adds per connection.
func BenchmarkConnectLatency(b *testing.B) {
	echo := echoServer(b)
	proxyAddr := benchProxy(b, echo, Policy{Allowed: []string{"bench.test:7000"}})
	// The first flight is one a client of a protocol the proxy splices
	// sends whole (an SSH banner): a lone byte that may still begin an
	// HTTP request line would measure the proxy's wait for the rest
	// (firstFlightQuiet), not its decision.
	hello := benchPayload(len("SSH-2.0-bench\r\n"))
	ping := func(c net.Conn) {
		if _, err := c.Write(hello); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, make([]byte, len(hello))); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	var dDirect, dTunnel time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		c, err := net.Dial("tcp", echo)
		if err != nil {
			b.Fatal(err)
		}
		ping(c)
		dDirect += time.Since(start)

		start = time.Now()
		ping(tunnelTo(b, proxyAddr))
		dTunnel += time.Since(start)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(dDirect.Microseconds())/n, "direct-µs/conn")
	b.ReportMetric(float64(dTunnel.Microseconds())/n, "tunnel-µs/conn")
	b.ReportMetric(float64((dTunnel-dDirect).Microseconds())/n, "added-µs/conn")
}

// BenchmarkConcurrentTunnels holds 1,000 tunnels open at once and reports
// the memory and file descriptors the proxy spends per tunnel: the growth
// of heap and stacks with 1,000 tunnels minus that with 1,000 direct
// connections to the same server.
func BenchmarkConcurrentTunnels(b *testing.B) {
	const n = 1000
	echo := echoServer(b)
	proxyAddr := benchProxy(b, echo, Policy{Allowed: []string{"bench.test:7000"}})
	measure := func(open func() net.Conn) (mem, fds float64) {
		runtime.GC()
		m0, f0 := memInUse(), openFDs()
		conns := make([]net.Conn, 0, n)
		for range n {
			c := open()
			var x [1]byte
			if _, err := c.Write(x[:]); err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(c, x[:]); err != nil {
				b.Fatal(err)
			}
			conns = append(conns, c)
		}
		time.Sleep(50 * time.Millisecond)
		runtime.GC()
		m1, f1 := memInUse(), openFDs()
		for _, c := range conns {
			c.Close()
		}
		time.Sleep(100 * time.Millisecond) // let both sides wind down
		return float64(m1-m0) / n, float64(f1-f0) / n
	}
	var memDirect, memTunnel, fdDirect, fdTunnel float64
	for i := 0; i < b.N; i++ {
		md, fd := measure(func() net.Conn {
			c, err := net.Dial("tcp", echo)
			if err != nil {
				b.Fatal(err)
			}
			return c
		})
		mt, ft := measure(func() net.Conn { return tunnelTo(b, proxyAddr) })
		memDirect, memTunnel = memDirect+md, memTunnel+mt
		fdDirect, fdTunnel = fdDirect+fd, fdTunnel+ft
	}
	k := float64(b.N)
	b.ReportMetric((memTunnel-memDirect)/k, "proxy-B/tunnel")
	b.ReportMetric((fdTunnel-fdDirect)/k, "proxy-fds/tunnel")
}

func memInUse() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

func openFDs() int64 {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return int64(len(ents))
}

// serveBench serves p on a loopback port until the benchmark ends and
// returns its address.
func serveBench(b *testing.B, p *Proxy) string {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.Serve(ctx, l)
	}()
	b.Cleanup(func() {
		cancel()
		<-done
	})
	return l.Addr().String()
}
