package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// One keep-alive plain-HTTP connection carries, in one write, a request
// to the allowed host whose body framing is ambiguous (CL.TE) and hides a
// request to another host, then a pipelined request to a host the policy
// refuses. The allowed upstream must see only requests for allowed.test,
// the refused host must never be dialed, and its decision must be a
// refusal. Control: the first request is answered.
func TestRedteam17PipelinedSmuggleOtherHost(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	var mu sync.Mutex
	var hosts []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		hosts = append(hosts, r.Host+" "+r.URL.Path)
		mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	h.dial.route(ap(addrAllowed, 80), ln.Addr().String())
	h.dial.route(ap(addrOther, 80), ln.Addr().String())

	smuggled := "GET http://evil.test/smuggled HTTP/1.1\r\nHost: evil.test\r\n\r\n"
	body := "0\r\n\r\n" + smuggled
	payload := "POST http://allowed.test/a HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + body +
		"GET http://evil.test/b HTTP/1.1\r\nHost: evil.test\r\n\r\n" +
		"GET http://allowed.test/c HTTP/1.1\r\nHost: allowed.test\r\n\r\n"
	c := mustDialProxy(t, h.addr)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, payload); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	var statuses []int
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			break
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	for _, hs := range hosts {
		if !strings.HasPrefix(hs, "allowed.test ") {
			t.Errorf("the upstream got a request for %q", hs)
		}
	}
	for _, a := range h.dial.dials() {
		if a.Addr() == addrOther {
			t.Errorf("the proxy dialed the refused host %s", a)
		}
	}
	for _, d := range h.sink.all() {
		if d.Host == "evil.test" && d.Allowed {
			t.Errorf("evil.test logged as allowed: %+v", d)
		}
	}
	t.Logf("statuses %v, upstream saw %v", statuses, hosts)
	if len(hosts) == 0 {
		t.Errorf("control: the allowed request never reached the upstream (statuses %v)", statuses)
	}
}
