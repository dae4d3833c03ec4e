package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// rt39Heap is the Go heap allocated after a collection.
func rt39Heap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// rt39Connect opens a CONNECT tunnel to allowed.test:443 through the
// proxy at addr, with a deadline d away, and returns it with the reader
// its 200 was read through.
func rt39Connect(t *testing.T, addr string, d time.Duration) (net.Conn, *bufio.Reader) {
	t.Helper()
	c := mustDialProxy(t, addr)
	_ = c.SetDeadline(time.Now().Add(d))
	_, _ = io.WriteString(c, "CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || resp.StatusCode != 200 {
		c.Close()
		t.Fatalf("CONNECT to an allowed host: %v %v", resp, err)
	}
	return c, br
}
