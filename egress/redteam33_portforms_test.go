package egress

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRedteam33PortFormsAndPipelinedHost (held; new cases): targets
// spelled oddly and a kept-alive intercepted connection reused for another
// host, each tried against a proxy with API_KEY bound to api.test and
// OTHER_KEY to other.test.
//
//   - CONNECT with the port written "0443" (read as 443: the tunnel is
//     api.test:443, intercepted, and the value goes to api.test only),
//     "+443", "443 ", "0x1bb", and IPv4-mapped IPv6 loopback
//     "[::ffff:127.0.0.1]:443": refused, never dialled.
//   - SOCKS5 with an ATYP domain holding NUL, a percent-encoded dot, a
//     bracketed or bare IPv4-mapped loopback, or "0x7f.1": refused,
//     never dialled.
//   - On an intercepted api.test connection whose first request had the
//     value injected (control: its echo comes back masked), a pipelined
//     second request naming other.test in Host, or carrying OTHER_KEY's
//     placeholder, or naming "API.TEST." (the same host: allowed, the
//     value injected again and masked): the first two are refused and
//     other.test never sees a request.
func TestRedteam33PortFormsAndPipelinedHost(t *testing.T) {
	e := newCredEnv(t)

	t.Run("CONNECT port forms", func(t *testing.T) {
		for _, tc := range []struct {
			target string
			ok     bool
		}{
			{"api.test:0443", true},
			{"api.test:+443", false},
			{"api.test:0x1bb", false},
			{"api.test:443 ", false},
			{"api.test:-443", false},
			{"[::ffff:127.0.0.1]:443", false},
			{"[::ffff:7f00:1]:443", false},
			{"api.test:65979", false}, // 443 + 65536
		} {
			before := len(e.h.dial.dials())
			c := mustDialProxy(t, e.h.addr)
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", tc.target, tc.target)
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
			if err != nil {
				c.Close()
				if tc.ok {
					t.Errorf("CONNECT %q: %v", tc.target, err)
				}
				continue
			}
			got := resp.StatusCode == 200
			if !tc.ok {
				if got {
					t.Errorf("ESCAPE? CONNECT %q accepted", tc.target)
				}
				for _, a := range e.h.dial.dials()[before:] {
					t.Errorf("CONNECT %q dialled %s", tc.target, a)
				}
				c.Close()
				continue
			}
			if !got {
				t.Errorf("control: CONNECT %q refused: %d", tc.target, resp.StatusCode)
				c.Close()
				continue
			}
			c.Close()
		}
	})

	t.Run("SOCKS5 odd domains", func(t *testing.T) {
		for _, host := range []string{
			"api.test\x00.evil.test",
			"api%2etest",
			"[::ffff:127.0.0.1]",
			"::ffff:127.0.0.1",
			"::ffff:7f00:1",
			"0x7f.1",
			"api.test:443",
			"api.test\t",
		} {
			before := len(e.h.dial.dials())
			if rep := socksRaw(t, e.h.addr, socksDomainReq(1, host, 443)); rep == 0 {
				t.Errorf("ESCAPE? SOCKS5 domain %q accepted", host)
			}
			for _, a := range e.h.dial.dials()[before:] {
				t.Errorf("SOCKS5 domain %q dialled %s", host, a)
			}
		}
		// Control: a plain SOCKS5 domain to an allowed host succeeds.
		if rep := socksRaw(t, e.h.addr, socksDomainReq(1, "third.test", 443)); rep != 0 {
			t.Errorf("control: SOCKS5 third.test:443 reply 0x%02x", rep)
		}
	})

	t.Run("pipelined second host", func(t *testing.T) {
		masked := strings.Repeat("*", len(apiValue))
		for _, tc := range []struct {
			name, second string
			ok           bool
		}{
			{"Host other.test", "GET /echo HTTP/1.1\r\nHost: other.test\r\nAuthorization: Bearer " + e.ph["OTHER_KEY"] + "\r\n\r\n", false},
			{"absolute other.test", "GET https://other.test/echo HTTP/1.1\r\nHost: api.test\r\n\r\n", false},
			{"other's placeholder", "GET /echo HTTP/1.1\r\nHost: api.test\r\nX-Api-Key: " + e.ph["OTHER_KEY"] + "\r\n\r\n", false},
			{"other's placeholder in Basic", "GET /echo HTTP/1.1\r\nHost: api.test\r\nAuthorization: Basic " +
				base64.StdEncoding.EncodeToString([]byte("u:"+e.ph["OTHER_KEY"])) + "\r\n\r\n", false},
			{"same host, odd case and dot", "GET /echo HTTP/1.1\r\nHost: API.TEST.\r\nAuthorization: Bearer " + e.ph["API_KEY"] + "\r\n\r\n", true},
			{"same host, port 0443", "GET /echo HTTP/1.1\r\nHost: api.test:0443\r\nAuthorization: Bearer " + e.ph["API_KEY"] + "\r\n\r\n", true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				otherBefore := len(e.up["other.test"].all())
				tc2, br := e.interceptedConn(t, "api.test:443")
				defer tc2.Close()
				_ = tc2.SetDeadline(time.Now().Add(10 * time.Second))
				first := "GET /echo HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer " + e.ph["API_KEY"] + "\r\n\r\n"
				if _, err := io.WriteString(tc2, first+tc.second); err != nil {
					t.Fatal(err)
				}
				var all strings.Builder
				resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				fmt.Fprintf(&all, "%v\n%s\n%v\n", resp.Header, b, resp.Trailer)
				if resp.StatusCode != 200 || !strings.Contains(string(b), "Bearer "+masked) {
					t.Errorf("control: first request %d, no masked echo", resp.StatusCode)
				}
				resp2, err := http.ReadResponse(br, &http.Request{Method: "GET"})
				if err == nil {
					b2, _ := io.ReadAll(resp2.Body)
					fmt.Fprintf(&all, "%d %v\n%s\n%v\n", resp2.StatusCode, resp2.Header, b2, resp2.Trailer)
					if tc.ok && (resp2.StatusCode != 200 || !strings.Contains(string(b2), "Bearer "+masked)) {
						t.Errorf("control: second request %d: %.200s", resp2.StatusCode, b2)
					}
					if !tc.ok && resp2.StatusCode < 400 {
						t.Errorf("ESCAPE? second request relayed: %d", resp2.StatusCode)
					}
				} else if tc.ok {
					t.Errorf("control: second response: %v", err)
				}
				if n := len(e.up["other.test"].all()); n != otherBefore {
					t.Errorf("ESCAPE: other.test got %d requests", n-otherBefore)
				}
				e.assertNoValue(t, all.String())
				for _, r := range e.up["api.test"].all() {
					if strings.Contains(fmt.Sprint(r.Header), otherValue) {
						t.Errorf("ESCAPE: OTHER_KEY's value went to api.test")
					}
				}
			})
		}
	})
}
