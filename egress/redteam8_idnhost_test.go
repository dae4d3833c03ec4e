package egress

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// rt8HeadServer is a raw upstream that hands each request head it reads to
// got and answers 200.
func rt8HeadServer(t *testing.T, got chan<- string) string {
	t.Helper()
	return tcpServer(t, func(c net.Conn) {
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		br := bufio.NewReader(c)
		var head strings.Builder
		for {
			l, err := br.ReadString('\n')
			head.WriteString(l)
			if err != nil || l == "\r\n" || l == "\n" {
				break
			}
		}
		got <- head.String()
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	})
}

// rt8HostOf returns the Host header of a request head.
func rt8HostOf(head string) string {
	for _, l := range strings.Split(head, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, "Host") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// TestRedteam8IDNHostHeader: the policy judges a plain-HTTP request by its
// host normalised with IDNA's Lookup profile (which maps full-width
// letters, drops soft hyphens, …), but the request goes upstream with the
// host as the client spelled it, which Go's request writer converts with
// the Punycode profile (no mapping). The upstream then reads a Host header
// naming another host (xn--allowed-oka.test) than the one the policy
// allowed (allowed.test): a shared front end routes the request there.
// "For plain HTTP the Host header must name the request target."
func TestRedteam8IDNHostHeader(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test", "www.allowed.test"}}})
	got := make(chan string, 16)
	h.dial.route(ap(addrAllowed, 80), rt8HeadServer(t, got))
	cases := []struct {
		name, host, want string
		control          bool
	}{
		{"control ascii", "allowed.test", "allowed.test", true},
		{"control upper case and trailing dot", "ALLOWED.Test.", "allowed.test", true},
		{"soft hyphen", "allo\u00adwed.test", "allowed.test", false},
		{"full-width letter", "\uff41llowed.test", "allowed.test", false},
		{"full-width letter in a subdomain", "www.\uff41llowed.test", "www.allowed.test", false},
		{"zero-width joiner mapped away", "allowed\u200b.test", "allowed.test", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for len(got) > 0 {
				<-got
			}
			c := mustDialProxy(t, h.addr)
			_, _ = io.WriteString(c, "GET http://"+tc.host+"/rt8 HTTP/1.1\r\nHost: "+tc.host+"\r\nConnection: close\r\n\r\n")
			resp, _ := io.ReadAll(c)
			var head string
			select {
			case head = <-got:
			case <-time.After(500 * time.Millisecond):
			}
			if tc.control {
				if !strings.HasPrefix(string(resp), "HTTP/1.1 200") || head == "" {
					t.Fatalf("control: the allowed request did not get through: %q, upstream %q", resp, head)
				}
			}
			if head == "" {
				return // refused: fine
			}
			host := strings.ToLower(strings.TrimSuffix(rt8HostOf(head), "."))
			if host != tc.want {
				t.Errorf("ESCAPE: the policy allowed %s, but the upstream read Host %q (request %q)", tc.want, rt8HostOf(head), tc.host)
			}
		})
	}
}
