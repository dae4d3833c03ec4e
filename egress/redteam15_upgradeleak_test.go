package egress

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// After a 101 Switching Protocols in a relayed tunnel (relay.switchProtocols)
// the client's bytes go upstream unread: a placeholder of a credential not
// bound to the tunnel's host reaches that host, where the same placeholder
// in the request itself is refused as a leak (credential-leak). It is only
// the placeholder, but the proxy promises to refuse it "wherever it can
// see it".

// upgradeSink is an upstream that switches to "echo" on request and
// records every byte sent after the 101.
type upgradeSink struct {
	mu  sync.Mutex
	got strings.Builder
}

func (s *upgradeSink) handler(w http.ResponseWriter, r *http.Request) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nready\n")
	_ = brw.Flush()
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	buf := make([]byte, 4096)
	for {
		n, err := brw.Read(buf)
		s.mu.Lock()
		s.got.Write(buf[:n])
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (s *upgradeSink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got.String()
}

// upgradeThenSend asks for an upgrade on c, waits for the 101 and the
// upstream's first line, then sends payload and closes its side.
func upgradeThenSend(t *testing.T, c net.Conn, br *bufio.Reader, host, extra, payload string) {
	t.Helper()
	fmt.Fprintf(c, "GET /up HTTP/1.1\r\nHost: %s\r\n%sConnection: Upgrade\r\nUpgrade: echo\r\n\r\n", host, extra)
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade on %s: %v %v", host, resp, err)
	}
	if line, err := br.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("upgraded stream on %s: %q %v", host, line, err)
	}
	_, _ = io.WriteString(c, payload)
	time.Sleep(300 * time.Millisecond)
	_ = c.Close()
}

// TestRedteam15UpgradedStreamCarriesForeignPlaceholder: a foreign
// placeholder after the 101, on an intercepted tunnel and on a plain-HTTP
// one.
//
// Fixed: switchProtocols now copies the client's bytes through a leak
// reader that passes them on at once, closes the stream at a placeholder
// (the bytes before it sent) and records a credential-leak decision.
func TestRedteam15UpgradedStreamCarriesForeignPlaceholder(t *testing.T) {
	e := newCredEnv(t)
	secure, plain := &upgradeSink{}, &upgradeSink{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(secure.handler))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{e.root.issue(t, "api.test")}}
	srv.Config.ErrorLog = quietLog
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e.h.dial.route(ap(addrAPI, 443), srv.Listener.Addr().String())
	psrv := httptest.NewServer(http.HandlerFunc(plain.handler))
	psrv.Config.ErrorLog = quietLog
	t.Cleanup(psrv.Close)
	e.h.dial.route(ap(addrThird, 80), psrv.Listener.Addr().String())

	// Control: OTHER_KEY's placeholder in a request to api.test is refused.
	tc, br := e.interceptedConn(t, "api.test:443")
	fmt.Fprintf(tc, "GET / HTTP/1.1\r\nHost: api.test\r\nX-Note: %s\r\n\r\n", e.ph["OTHER_KEY"])
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("control: OTHER_KEY's placeholder toward api.test: %v %v", resp, err)
	}
	tc.Close()

	cases := []struct {
		name, host, extra string
		leaked            string // the placeholder that must not arrive
		sink              *upgradeSink
		dial              func() (net.Conn, *bufio.Reader)
	}{
		{"intercepted api.test, OTHER_KEY", "api.test", "Authorization: Bearer " + e.ph["API_KEY"] + "\r\n",
			e.ph["OTHER_KEY"], secure, func() (net.Conn, *bufio.Reader) {
				c, br := e.interceptedConn(t, "api.test:443")
				return c, br
			}},
		{"plain tunnel third.test:80, API_KEY in the clear", "third.test", "",
			e.ph["API_KEY"], plain, func() (net.Conn, *bufio.Reader) {
				c := mustDialProxy(t, e.h.addr)
				fmt.Fprintf(c, "CONNECT third.test:80 HTTP/1.1\r\nHost: third.test:80\r\n\r\n")
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
				if err != nil || resp.StatusCode != 200 {
					t.Fatalf("CONNECT third.test:80: %v %v", resp, err)
				}
				return c, br
			}},
	}
	var failures []string
	for _, tc := range cases {
		c, br := tc.dial()
		upgradeThenSend(t, c, br, tc.host, tc.extra, "hello\nleak: "+tc.leaked+"\n")
		got := tc.sink.text()
		// Control: the upgraded stream works.
		if !strings.Contains(got, "hello\n") {
			t.Fatalf("%s: the upgraded stream carried nothing: %q", tc.name, got)
		}
		if strings.Contains(got, tc.leaked) {
			failures = append(failures, tc.name)
		}
	}
	e.assertNoValue(t, secure.text(), plain.text())
	// Each stream that carried one is on record as a blocked leak (the
	// control's refusal is the first).
	ds := e.waitRule(t, RuleCredentialLeak, 1+len(cases))
	for _, cred := range []string{"OTHER_KEY", "API_KEY"} {
		if !slices.ContainsFunc(ds, func(d Decision) bool {
			return d.Credential == cred && !d.Allowed && strings.Contains(d.Reason, "the upgraded stream")
		}) {
			t.Errorf("no credential-leak decision for %s in the upgraded stream: %+v", cred, ds)
		}
	}
	if len(failures) > 0 {
		t.Fatalf("a placeholder reached a host its credential is not bound to through an upgraded stream, unrefused: %s",
			strings.Join(failures, "; "))
	}
}
