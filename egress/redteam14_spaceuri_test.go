package egress

import (
	"bufio"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// lenientFrontEnd is a shared front end (virtual hosts chosen by the Host
// header) whose request-line parser is nginx's before 1.21.1
// (ngx_http_parse_request_line): after the target, a blank followed by
// anything but 'H' is taken as a space inside the target (space_in_uri),
// so "GET /a b HTTP/1.1" is a valid HTTP/1.1 request for "/a b". Each
// request it serves is answered with the virtual host it went to, and
// recorded.
type lenientFrontEnd struct {
	mu     sync.Mutex
	vhosts []string
}

func (f *lenientFrontEnd) served() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.vhosts...)
}

func (f *lenientFrontEnd) serve(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	tp := textproto.NewReader(bufio.NewReader(c))
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		method, rest, ok := strings.Cut(line, " ")
		if !ok || method == "" {
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			return
		}
		// The version is the first word after a blank that starts with
		// 'H'; every word before it belongs to the target.
		words := strings.Fields(rest)
		version := ""
		for i, w := range words {
			if i > 0 && strings.HasPrefix(w, "H") {
				if i != len(words)-1 || (w != "HTTP/1.1" && w != "HTTP/1.0") {
					io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
					return
				}
				version = w
			}
		}
		vhost := "default"
		if version != "" {
			h, err := tp.ReadMIMEHeader()
			if err != nil {
				return
			}
			if v := h.Get("Host"); v != "" {
				vhost = v
			}
		}
		f.mu.Lock()
		f.vhosts = append(f.vhosts, vhost)
		f.mu.Unlock()
		body := "vhost=" + vhost
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		if version == "" {
			return // HTTP/0.9: one request per connection
		}
	}
}

// TestRedteam14SpaceInTargetFrontsPlainHTTPTunnel: plain HTTP inside a
// CONNECT tunnel to an allowed host's port 80 is relayed a request at a
// time, each one's Host checked (relayPlain), because a shared front end
// would route any Host. The check starts only if the tunnel's first bytes
// read as a request line (requestLine), and requestLine gives up at the
// first byte after the target's blank that does not start "HTTP/": a
// request line with a blank inside its target ("GET /a b HTTP/1.1") is
// taken for some other protocol and spliced unchecked. A front end that
// reads blanks inside the target, as nginx did before 1.21.1, serves it as
// HTTP/1.1 with whatever Host it names: the sandbox reaches a host the
// policy never allowed through the allowed one. The attack must be
// refused (or relayed with its Host checked); the controls show the
// front end serves an ordinary allowed request, and that the same Host
// in a well-formed request line is refused.
func TestRedteam14SpaceInTargetFrontsPlainHTTPTunnel(t *testing.T) {
	const evil = "Host: evil.test\r\n\r\n"
	for _, tc := range []struct {
		name    string
		first   string
		control bool // must reach the front end's allowed.test
	}{
		{"space in the target", "GET /a b HTTP/1.1\r\n" + evil, false},
		{"several words in the target", "GET /x y z HTTP/1.1\r\n" + evil, false},
		{"space in an absolute target", "GET http://evil.test/ x HTTP/1.1\r\n" + evil, false},
		{"POST with a body", "POST /up load HTTP/1.1\r\nContent-Length: 4\r\n" + evil + "data", false},
		{"control: well-formed, other Host", "GET /b HTTP/1.1\r\n" + evil, false},
		{"control: allowed Host", "GET /ok HTTP/1.1\r\nHost: allowed.test\r\n\r\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
			fe := &lenientFrontEnd{}
			h.dial.route(ap(addrAllowed, 80), tcpServer(t, fe.serve))
			back := connectTo(t, h, "allowed.test:80", []byte(tc.first))
			served := fe.served()
			t.Logf("client read %q; front end served %q", back, served)
			if tc.control {
				if len(served) != 1 || served[0] != "allowed.test" || !strings.Contains(back, "vhost=allowed.test") {
					t.Fatalf("control: the allowed request was not served (client read %q, front end %q)", back, served)
				}
				return
			}
			for _, v := range served {
				if v != "allowed.test" {
					t.Errorf("ESCAPE: the front end behind allowed.test served virtual host %q (client read %q)", v, back)
				}
			}
			if strings.Contains(back, "vhost=evil.test") {
				t.Errorf("ESCAPE: the client got evil.test's response through a tunnel to allowed.test")
			}
			refused := false
			for _, d := range h.sink.all() {
				if !d.Allowed {
					refused = true
				}
			}
			if !refused {
				t.Errorf("no refusing decision recorded: %+v", h.sink.all())
			}
		})
	}
}
