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

func transfer(b *testing.B, c net.Conn, buf []byte) time.Duration {
	start := time.Now()
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
	return time.Since(start)
}

// BenchmarkTunnelThroughput moves the same bytes over a direct loopback
// connection and through a CONNECT tunnel, alternating, and reports both
// rates and their ratio (target ≥ 0.80).
func BenchmarkTunnelThroughput(b *testing.B) {
	sink := sinkServer(b)
	proxyAddr := benchProxy(b, sink, Policy{Allowed: []string{"bench.test:7000"}})
	direct, err := net.Dial("tcp", sink)
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()
	tunnel := tunnelTo(b, proxyAddr)
	defer tunnel.Close()
	buf := make([]byte, 256<<10)
	transfer(b, direct, buf) // warm up both paths
	transfer(b, tunnel, buf)

	var dDirect, dTunnel time.Duration
	b.SetBytes(2 * benchChunk)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			dDirect += transfer(b, direct, buf)
			dTunnel += transfer(b, tunnel, buf)
		} else {
			dTunnel += transfer(b, tunnel, buf)
			dDirect += transfer(b, direct, buf)
		}
	}
	b.StopTimer()
	mb := float64(b.N) * benchChunk / (1 << 20)
	b.ReportMetric(mb/dDirect.Seconds(), "direct-MiB/s")
	b.ReportMetric(mb/dTunnel.Seconds(), "tunnel-MiB/s")
	b.ReportMetric(dDirect.Seconds()/dTunnel.Seconds(), "tunnel/direct")
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
		if ok, _ := p.screen(answer); len(ok) != 2 {
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
	ping := func(c net.Conn) {
		var x [1]byte
		if _, err := c.Write(x[:]); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, x[:]); err != nil {
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
