package egress

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func TestKeepAliveIntercepted(t *testing.T) {
	e := newCredEnv(t)
	conn, br := e.interceptedConn(t, "api.test:443")
	defer conn.Close()
	// One at a time, then three pipelined.
	for i := range 3 {
		fmt.Fprintf(conn, "GET /seq/%d HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer %s\r\n\r\n", i, e.ph["API_KEY"])
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("request %d: %v %v", i, resp, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	// HEAD and an Expect: 100-continue upload keep the framing right.
	fmt.Fprintf(conn, "HEAD /head HTTP/1.1\r\nHost: api.test\r\n\r\n")
	if resp, err := http.ReadResponse(br, &http.Request{Method: "HEAD"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("HEAD: %v %v", resp, err)
	}
	fmt.Fprintf(conn, "PUT /put HTTP/1.1\r\nHost: api.test\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("want 100 Continue: %v %v", resp, err)
	}
	fmt.Fprintf(conn, "data")
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("PUT: %v %v", resp, err)
	} else {
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	var pipelined strings.Builder
	for i := range 3 {
		fmt.Fprintf(&pipelined, "GET /pipe/%d HTTP/1.1\r\nHost: api.test\r\nX-Api-Key: %s\r\n\r\n", i, e.ph["API_KEY"])
	}
	if _, err := io.WriteString(conn, pipelined.String()); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("pipelined %d: %v %v", i, resp, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	reqs := e.up["api.test"].all()
	if len(reqs) != 8 {
		t.Fatalf("upstream saw %d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.Remote != reqs[0].Remote {
			t.Errorf("request %d on another upstream connection (%s, %s)", i, r.Remote, reqs[0].Remote)
		}
		if r.Method == "PUT" && r.Body != "data" {
			t.Errorf("PUT body %q", r.Body)
		}
		if r.Method == "GET" && r.Header.Get("Authorization") != "Bearer "+apiValue && r.Header.Get("X-Api-Key") != apiValue {
			t.Errorf("request %d not injected: %v", i, r.Header)
		}
	}
	if n := len(e.waitRule(t, RuleCredentialUse, 6)); n != 6 {
		t.Errorf("%d injection decisions", n)
	}
	e.assertNoValue(t)
}

func TestConcurrentInjection(t *testing.T) {
	e := newCredEnv(t)
	const clients, each = 12, 4
	var wg sync.WaitGroup
	errs := make(chan error, clients*each)
	for i := range clients {
		wg.Go(func() {
			c := e.client([]string{"http", "socks5"}[i%2])
			defer c.CloseIdleConnections()
			for j := range each {
				host, name := "api.test", "API_KEY"
				if (i+j)%2 == 1 {
					host, name = "other.test", "OTHER_KEY"
				}
				req, _ := http.NewRequest("GET", fmt.Sprintf("https://%s/%d/%d", host, i, j), nil)
				req.Header.Set("Authorization", "Bearer "+e.ph[name])
				resp, err := c.Do(req)
				if err != nil {
					errs <- err
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					errs <- fmt.Errorf("%s: status %d", req.URL, resp.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := map[string]string{"api.test": apiValue, "other.test": otherValue}
	total := 0
	for host, v := range want {
		for _, r := range e.up[host].all() {
			total++
			if r.Header.Get("Authorization") != "Bearer "+v {
				t.Errorf("%s got %q", host, r.Header.Get("Authorization"))
			}
		}
	}
	if total != clients*each {
		t.Errorf("upstreams saw %d requests, want %d", total, clients*each)
	}
	e.assertNoValue(t)
}

func TestChunkedBodies(t *testing.T) {
	e := newCredEnv(t)
	conn, br := e.interceptedConn(t, "api.test:443")
	defer conn.Close()
	// A chunked body with a trailer to the bound host: passed on intact,
	// including its own (bound) placeholder, which is not injected there.
	ph := e.ph["API_KEY"]
	fmt.Fprintf(conn, "POST /upload HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\nAuthorization: Bearer %s\r\n\r\n", ph)
	fmt.Fprintf(conn, "5\r\nhello\r\n%x\r\n%s\r\n3\r\nend\r\n0\r\nX-Sum: 42\r\n\r\n", len(ph), ph)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("chunked POST: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	r := e.up["api.test"].all()[0]
	if r.Body != "hello"+ph+"end" || r.Trailer.Get("X-Sum") != "42" || r.Header.Get("Authorization") != "Bearer "+apiValue {
		t.Fatalf("upstream got %+v", r)
	}

	// OTHER_KEY's placeholder split across two chunks toward api.test:
	// refused before it leaves.
	other := e.ph["OTHER_KEY"]
	fmt.Fprintf(conn, "POST /upload HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: chunked\r\n\r\n")
	fmt.Fprintf(conn, "%x\r\nx=%s\r\n", 2+10, other[:10])
	fmt.Fprintf(conn, "%x\r\n%s\r\n0\r\n\r\n", len(other)-10, other[10:])
	resp, err = http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Agentbox-Deny") != RuleCredentialLeak {
		t.Fatalf("split placeholder: %v %v", resp, err)
	}
	for _, r := range e.up["api.test"].all() {
		if strings.Contains(r.Body, other) {
			t.Fatalf("upstream received the placeholder: %+v", r)
		}
	}
	d := e.waitRule(t, RuleCredentialLeak, 1)[0]
	if d.Credential != "OTHER_KEY" || !strings.Contains(d.Reason, "body") {
		t.Errorf("decision %+v", d)
	}
	e.assertNoValue(t)
}

func TestUpgradeRelayed(t *testing.T) {
	e := newCredEnv(t)
	// api.test answers an upgrade with 101 and then echoes.
	var gotAuth string
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{e.root.issue(t, "api.test")}})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ErrorLog: quietLog, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		_ = rw.Flush()
		_, _ = io.Copy(conn, rw)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	e.h.dial.route(ap(addrAPI, 443), l.Addr().String())

	conn, br := e.interceptedConn(t, "api.test:443")
	defer conn.Close()
	fmt.Fprintf(conn, "GET /ws HTTP/1.1\r\nHost: api.test\r\nConnection: Upgrade\r\nUpgrade: echo\r\nAuthorization: Bearer %s\r\n\r\n", e.ph["API_KEY"])
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	msg := "ping over the upgraded stream"
	if _, err := io.WriteString(conn, msg); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(br, buf); err != nil || string(buf) != msg {
		t.Fatalf("echo %q %v", buf, err)
	}
	if gotAuth != "Bearer "+apiValue {
		t.Errorf("upgrade request Authorization %q", gotAuth)
	}
}

func TestBoundHostWithoutTLS(t *testing.T) {
	if !waitDataBlocks {
		t.Skip("needs waitData to notice an upstream that speaks first")
	}
	e := newCredEnv(t)
	// api.test:443 is a server that speaks first (not TLS): the tunnel is
	// not intercepted and does not wait for the client.
	banner := tcpServer(t, func(c net.Conn) {
		_, _ = io.WriteString(c, "220 ready\r\n")
		_, _ = io.Copy(c, c)
	})
	e.h.dial.route(ap(addrAPI, 443), banner)
	c := mustDialProxy(t, e.h.addr)
	fmt.Fprintf(c, "CONNECT api.test:443 HTTP/1.1\r\n\r\n")
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	line, err := br.ReadString('\n')
	if err != nil || line != "220 ready\r\n" {
		t.Fatalf("banner %q %v", line, err)
	}
	_, _ = io.WriteString(c, "hello "+e.ph["API_KEY"])
	buf := make([]byte, len("hello ")+len(e.ph["API_KEY"]))
	if _, err := io.ReadFull(br, buf); err != nil || string(buf) != "hello "+e.ph["API_KEY"] {
		t.Fatalf("echo %q %v", buf, err)
	}

	// A client that speaks first but not TLS: spliced, untouched.
	e.h.dial.route(ap(addrAPI, 443), echoServer(t))
	c2 := mustDialProxy(t, e.h.addr)
	fmt.Fprintf(c2, "CONNECT api.test:443 HTTP/1.1\r\n\r\n")
	br2 := bufio.NewReader(c2)
	if resp, err := http.ReadResponse(br2, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	msg := "HELLO " + e.ph["API_KEY"] + "\r\n"
	_, _ = io.WriteString(c2, msg)
	buf = make([]byte, len(msg))
	if _, err := io.ReadFull(br2, buf); err != nil || string(buf) != msg {
		t.Fatalf("echo %q %v", buf, err)
	}

	// Plain HTTP in such a tunnel is relayed a request at a time, and a
	// placeholder in one is a leak: values go only into HTTPS.
	c3 := mustDialProxy(t, e.h.addr)
	fmt.Fprintf(c3, "CONNECT api.test:443 HTTP/1.1\r\n\r\n")
	br3 := bufio.NewReader(c3)
	if resp, err := http.ReadResponse(br3, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	_, _ = io.WriteString(c3, "GET / HTTP/1.1\r\nHost: api.test:443\r\nAuthorization: "+e.ph["API_KEY"]+"\r\n\r\n")
	resp, err := http.ReadResponse(br3, nil)
	if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Agentbox-Deny") != RuleCredentialLeak {
		t.Fatalf("plain HTTP with a placeholder: %v %v", resp, err)
	}
	if body, _ := io.ReadAll(resp.Body); !strings.Contains(string(body), "only over HTTPS") {
		t.Errorf("the refusal does not say why: %q", body)
	}
	if e.fetches.Load() != 0 {
		t.Error("a value was fetched for a tunnel that is not TLS")
	}
}

// TestInterceptResumesSessions: the client-facing TLS config is shared, so
// a client resumes its session on the next intercepted connection.
func TestInterceptResumesSessions(t *testing.T) {
	e := newCredEnv(t)
	cache := tls.NewLRUClientSessionCache(8)
	for i := range 2 {
		c := mustDialProxy(t, e.h.addr)
		fmt.Fprintf(c, "CONNECT api.test:443 HTTP/1.1\r\n\r\n")
		br := bufio.NewReader(c)
		if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		tc := tls.Client(c, &tls.Config{ServerName: "api.test", RootCAs: e.clientCA, ClientSessionCache: cache})
		fmt.Fprintf(tc, "GET / HTTP/1.1\r\nHost: api.test\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(tc), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("request %d: %v %v", i, resp, err)
		}
		if got := tc.ConnectionState().DidResume; got != (i == 1) {
			t.Errorf("connection %d: resumed %v", i, got)
		}
		tc.Close()
	}
}
