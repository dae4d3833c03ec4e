package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawHead is one request head as the upstream received it, byte for byte.
type rawHead struct {
	line   string
	fields []string // "Name: value" as sent
}

// strictUpstream serves HTTP/1.1 on loopback and records every request
// head it reads, raw. It frames bodies strictly (one exact
// "Transfer-Encoding: chunked" or one all-digits Content-Length) and
// flags every head a lenient server could frame otherwise: framing
// fields duplicated, both present, values not canonical, or look-alike
// names (Transfer_Encoding, Content_Length) are noted apart.
type strictUpstream struct {
	mu    sync.Mutex
	heads []rawHead
	odd   []string
	// lookalike holds "_" spellings of framing fields that went upstream:
	// noted, not failed, as no server known to us frames by them.
	lookalike []string
}

func (s *strictUpstream) serve(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		var h rawHead
		h.line = strings.TrimRight(line, "\r\n")
		if h.line == "" {
			continue // servers skip blank lines before a request
		}
		if m, rest, ok := strings.Cut(h.line, " "); !ok || m == "" || strings.ContainsFunc(m, func(r rune) bool { return !isTokenChar(byte(r)) || r > 0x7f }) ||
			!strings.HasSuffix(rest, " HTTP/1.1") && !strings.HasSuffix(rest, " HTTP/1.0") {
			return // a malformed request line: a server answers 400 and closes
		}
		for {
			f, err := br.ReadString('\n')
			if err != nil {
				return
			}
			f = strings.TrimRight(f, "\r\n")
			if f == "" {
				break
			}
			h.fields = append(h.fields, f)
		}
		s.mu.Lock()
		s.heads = append(s.heads, h)
		s.mu.Unlock()
		var te, cl []string
		for _, f := range h.fields {
			name, val, _ := strings.Cut(f, ":")
			ln := strings.ToLower(name)
			switch {
			case ln == "transfer-encoding":
				te = append(te, val)
			case ln == "content-length":
				cl = append(cl, val)
			case strings.ReplaceAll(ln, "_", "-") == "transfer-encoding" ||
				strings.ReplaceAll(ln, "_", "-") == "content-length" || name != strings.TrimSpace(name):
				s.mu.Lock()
				s.lookalike = append(s.lookalike, f)
				s.mu.Unlock()
			}
		}
		switch {
		case len(te) > 0 && len(cl) > 0:
			s.flag("both Transfer-Encoding %q and Content-Length %q in %q", te, cl, h.line)
			return
		case len(te) > 1 || len(cl) > 1:
			s.flag("framing field repeated: TE %q CL %q in %q", te, cl, h.line)
			return
		case len(te) == 1:
			if te[0] != " chunked" {
				s.flag("non-canonical Transfer-Encoding %q in %q", te[0], h.line)
				return
			}
			if _, err := io.Copy(io.Discard, httputil.NewChunkedReader(br)); err != nil {
				return
			}
			for { // trailers
				f, err := br.ReadString('\n')
				if err != nil {
					return
				}
				if strings.TrimRight(f, "\r\n") == "" {
					break
				}
			}
		case len(cl) == 1:
			v := strings.TrimPrefix(cl[0], " ")
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || strconv.FormatInt(n, 10) != v {
				s.flag("non-canonical Content-Length %q in %q", cl[0], h.line)
				return
			}
			if _, err := io.CopyN(io.Discard, br, n); err != nil {
				return
			}
		}
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
			return
		}
	}
}

func (s *strictUpstream) flag(format string, a ...any) {
	s.mu.Lock()
	s.odd = append(s.odd, fmt.Sprintf(format, a...))
	s.mu.Unlock()
}

func (s *strictUpstream) snapshot() ([]rawHead, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]rawHead(nil), s.heads...), append([]string(nil), s.odd...)
}

// smuggleVariants each frame a POST to allowed.test whose body, read with
// another framing, is a request for evil.test.
func smuggleVariants() []struct{ name, framing, body string } {
	hidden := "GET /smuggled HTTP/1.1\r\nHost: evil.test\r\n\r\n"
	chunk := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(hidden), hidden)
	clte := "0\r\n\r\n" + hidden
	return []struct{ name, framing, body string }{
		{"CL.TE", "Content-Length: " + strconv.Itoa(len(clte)) + "\r\nTransfer-Encoding: chunked\r\n", clte},
		{"TE.CL", "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n", chunk},
		{"TE chunked, identity", "Content-Length: " + strconv.Itoa(len(clte)) + "\r\nTransfer-Encoding: chunked, identity\r\n", clte},
		{"TE two spaces", "Content-Length: " + strconv.Itoa(len(clte)) + "\r\nTransfer-Encoding:  chunked\r\n", clte},
		{"TE tab", "Content-Length: " + strconv.Itoa(len(clte)) + "\r\nTransfer-Encoding:\tchunked\r\n", clte},
		{"TE trailing tab", "Content-Length: " + strconv.Itoa(len(clte)) + "\r\nTransfer-Encoding: chunked\t\r\n", clte},
		{"TE capitals", "Content-Length: " + strconv.Itoa(len(clte)) + "\r\nTransfer-Encoding: CHUNKED\r\n", clte},
		{"TE twice", "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\nContent-Length: 4\r\n", chunk},
		{"TE folded", "Content-Length: " + strconv.Itoa(len(clte)) + "\r\nX-A: b\r\n Transfer-Encoding: chunked\r\n", clte},
		{"TE xchunked", "Content-Length: " + strconv.Itoa(len(clte)) + "\r\nTransfer-Encoding: xchunked\r\n", clte},
		{"CL twice", "Content-Length: 0\r\nContent-Length: " + strconv.Itoa(len(hidden)) + "\r\n", hidden},
		{"CL list", "Content-Length: 0, " + strconv.Itoa(len(hidden)) + "\r\n", hidden},
		{"CL plus", "Content-Length: +" + strconv.Itoa(len(hidden)) + "\r\n", hidden},
		{"CL zero-padded", "Content-Length: 0" + strconv.Itoa(len(hidden)) + "\r\n", hidden},
		{"Transfer_Encoding", "Content-Length: " + strconv.Itoa(len(clte)) + "\r\nTransfer_Encoding: chunked\r\n", clte},
		{"Content_Length", "Content_Length: " + strconv.Itoa(len(hidden)) + "\r\nContent-Length: 0\r\n", hidden},
	}
}

// TestRedteam26SmuggleAllPaths sends, on one keep-alive connection each,
// a request to allowed.test whose framing is ambiguous (CL.TE, TE.CL,
// obfuscated Transfer-Encoding, duplicate or odd Content-Length, "_"
// look-alikes) and hides a request for evil.test, then a plain request
// to allowed.test. It does so through the plain HTTP proxy, a CONNECT
// tunnel to allowed.test:80 and a SOCKS5 tunnel to allowed.test:80 (both
// relayed a request at a time). The upstream, shared by allowed.test and
// evil.test as a front end would be, records every head raw and frames
// strictly, flagging framing a lenient server could read otherwise.
//
// Attack held: every variant is refused or re-framed; no request for
// evil.test (nor /smuggled) reaches the upstream, evil.test's address is
// never dialled and no framing the upstream could read two ways goes out
// (new coverage: the tunnel and SOCKS relays). "_" look-alikes
// (Transfer_Encoding) go upstream as they are, which only a server
// framing by them could misread: logged, not failed.
// Control: the plain request after each refused or re-framed one, on a
// fresh connection, is answered.
func TestRedteam26SmuggleAllPaths(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
	up := &strictUpstream{}
	srv := tcpServer(t, up.serve)
	h.dial.route(ap(addrAllowed, 80), srv)
	h.dial.route(ap(addrOther, 80), srv)

	type path struct {
		name string
		open func(t *testing.T) net.Conn
		uri  string
	}
	paths := []path{
		{"proxy", func(t *testing.T) net.Conn { return mustDialProxy(t, h.addr) }, "http://allowed.test"},
		{"connect", func(t *testing.T) net.Conn {
			c := mustDialProxy(t, h.addr)
			_, _ = io.WriteString(c, "CONNECT allowed.test:80 HTTP/1.1\r\nHost: allowed.test:80\r\n\r\n")
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != 200 || br.Buffered() != 0 {
				t.Fatalf("CONNECT: %v %v", resp, err)
			}
			return c
		}, ""},
		{"socks5", func(t *testing.T) net.Conn {
			c := mustDialProxy(t, h.addr)
			_, _ = c.Write([]byte{5, 1, 0})
			var sel [2]byte
			if _, err := io.ReadFull(c, sel[:]); err != nil {
				t.Fatal(err)
			}
			_, _ = c.Write(socksDomainReq(1, "allowed.test", 80))
			var rep [10]byte
			if _, err := io.ReadFull(c, rep[:]); err != nil || rep[1] != 0 {
				t.Fatalf("SOCKS reply %v %v", rep, err)
			}
			return c
		}, ""},
	}
	for _, p := range paths {
		for _, v := range smuggleVariants() {
			t.Run(p.name+"/"+v.name, func(t *testing.T) {
				c := p.open(t)
				payload := "POST " + p.uri + "/a HTTP/1.1\r\nHost: allowed.test\r\n" + v.framing + "\r\n" + v.body
				_ = c.SetDeadline(time.Now().Add(3 * time.Second))
				if _, err := io.WriteString(c, payload); err != nil {
					t.Fatal(err)
				}
				br := bufio.NewReader(c)
				var got []int
				for {
					resp, err := http.ReadResponse(br, nil)
					if err != nil {
						break
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					got = append(got, resp.StatusCode)
					if len(got) == 1 {
						// The request after it, on the same connection.
						_, _ = io.WriteString(c, "GET "+p.uri+"/next HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n")
					}
				}
				t.Logf("statuses %v", got)
				// Control: a clean request on a fresh connection is answered.
				c2 := p.open(t)
				_, _ = io.WriteString(c2, "GET "+p.uri+"/control HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n")
				resp, err := http.ReadResponse(bufio.NewReader(c2), nil)
				if err != nil || resp.StatusCode != 200 {
					t.Errorf("control: %v %v", resp, err)
				}
			})
		}
	}
	time.Sleep(100 * time.Millisecond)
	heads, odd := up.snapshot()
	for _, o := range odd {
		t.Errorf("AMBIGUOUS FRAMING reached the upstream: %s", o)
	}
	up.mu.Lock()
	t.Logf("look-alike framing fields passed upstream as they are: %q", up.lookalike)
	up.mu.Unlock()
	controls := 0
	for _, hd := range heads {
		if strings.Contains(hd.line, "/smuggled") {
			t.Errorf("ESCAPE: the smuggled request reached the upstream: %q %q", hd.line, hd.fields)
		}
		for _, f := range hd.fields {
			if strings.HasPrefix(strings.ToLower(f), "host:") && !strings.EqualFold(strings.TrimSpace(f[5:]), "allowed.test") {
				t.Errorf("ESCAPE: the upstream got a request for %q: %q", f, hd.line)
			}
		}
		if strings.Contains(hd.line, "/control") {
			controls++
		}
	}
	if want := len(paths) * len(smuggleVariants()); controls != want {
		t.Errorf("control: %d of %d clean requests reached the upstream", controls, want)
	}
	for _, a := range h.dial.dials() {
		if a.Addr() == addrOther {
			t.Errorf("ESCAPE: the proxy dialled evil.test's address %s", a)
		}
	}
}

// TestRedteam26SOCKSTargets tries spellings of refused targets in SOCKS5
// requests: IPv4 and IPv6 (ATYP 1/4) literals of loopback, metadata and an
// unlisted address (also IPv4-mapped, NAT64 and 6to4 forms), an unlisted
// name with capitals, a trailing dot, an IDN spelling and a NUL byte, and
// method games (only username/password offered; user/pass sub-negotiation
// bytes sent anyway). Then, inside an allowed tunnel to allowed.test:80, a
// second SOCKS5 request, an h2c prior-knowledge preface and an HTTP
// request whose Host names evil.test. None may reach evil.test's address
// or carry a request for evil.test upstream. Attack held (new coverage:
// mapped literals over ATYP 4, in-tunnel SOCKS and h2c). Control:
// allowed.test:80 over SOCKS5 is answered.
func TestRedteam26SOCKSTargets(t *testing.T) {
	h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test", "192.0.2.10"}}})
	h.res.answers["evil.test."] = []netip.Addr{addrOther}
	up := &strictUpstream{}
	srv := tcpServer(t, up.serve)
	h.dial.route(ap(addrAllowed, 80), srv)
	h.dial.route(ap(addrOther, 80), srv)

	refused := [][]byte{
		socksIPReq(1, addrOther, 80),
		socksIPReq(1, netip.MustParseAddr("127.0.0.1"), 80),
		socksIPReq(1, netip.MustParseAddr("169.254.169.254"), 80),
		socksIPReq(1, netip.AddrFrom16(addrOther.As16()), 80), // ::ffff:198.51.100.20
		socksIPReq(1, netip.AddrFrom16(addrAllowed.As16()), 80),
		socksIPReq(1, netip.MustParseAddr("::ffff:127.0.0.1"), 80),
		socksIPReq(1, netip.MustParseAddr("64:ff9b::c633:6414"), 80),
		socksIPReq(1, netip.MustParseAddr("2002:c633:6414::1"), 80),
		socksIPReq(1, netip.MustParseAddr("::127.0.0.1"), 80),
		socksDomainReq(1, "EVIL.TEST", 80),
		socksDomainReq(1, "evil.test.", 80),
		socksDomainReq(1, "evil.test\x00.allowed.test", 80),
		socksDomainReq(1, "allowed.test\x00", 80),
		socksDomainReq(1, "evıl.test", 80),
		socksDomainReq(1, "ｅｖｉｌ.test", 80),
		socksDomainReq(1, "allowed.test:80@evil.test", 80),
		socksDomainReq(1, "198.51.100.20", 80),
		socksDomainReq(1, "0xc6.51.100.20", 80),
		socksDomainReq(1, "[::ffff:198.51.100.20]", 80),
		socksDomainReq(1, "allowed.test", 22),
	}
	for i, req := range refused {
		c := mustDialProxy(t, h.addr)
		_, _ = c.Write([]byte{5, 1, 0})
		var sel [2]byte
		if _, err := io.ReadFull(c, sel[:]); err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write(req)
		var rep [10]byte
		_, err := io.ReadFull(c, rep[:])
		if err == nil && rep[1] == 0 {
			_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n")
			t.Errorf("request %d %q: granted", i, req)
		}
		c.Close()
	}
	// Method games.
	for _, g := range [][]byte{{5, 1, 2}, {5, 2, 2, 0, 1, 4, 'u', 's', 'e', 'r', 4, 'p', 'a', 's', 's'}} {
		c := mustDialProxy(t, h.addr)
		_, _ = c.Write(g)
		_, _ = c.Write(socksDomainReq(1, "evil.test", 80))
		b, _ := io.ReadAll(c)
		if len(b) >= 4 && b[2] == 5 && b[3] == 0 {
			t.Errorf("method game %v: granted (%v)", g, b)
		}
		c.Close()
	}
	// Inside an allowed tunnel.
	inner := []string{
		string(socksDomainReq(1, "evil.test", 80)),
		string(append([]byte{5, 1, 0}, socksDomainReq(1, "evil.test", 80)...)),
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00",
		"GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n",
		"GET http://evil.test/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\nGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n",
		"\x80\r\nGET / HTTP/1.1\r\nHost: evil.test\r\n\r\n",
	}
	for i, in := range inner {
		c := mustDialProxy(t, h.addr)
		_, _ = c.Write([]byte{5, 1, 0})
		var sel [2]byte
		_, _ = io.ReadFull(c, sel[:])
		_, _ = c.Write(socksDomainReq(1, "allowed.test", 80))
		var rep [10]byte
		if _, err := io.ReadFull(c, rep[:]); err != nil || rep[1] != 0 {
			t.Fatalf("inner %d: control tunnel refused %v %v", i, rep, err)
		}
		_, _ = io.WriteString(c, in)
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		b, _ := io.ReadAll(c)
		t.Logf("inner %d: %q", i, firstLine(b))
		c.Close()
	}
	// Control.
	c := mustDialProxy(t, h.addr)
	_, _ = c.Write(append([]byte{5, 1, 0}, socksDomainReq(1, "allowed.test", 80)...))
	var rep [12]byte
	if _, err := io.ReadFull(c, rep[:]); err != nil || rep[3] != 0 {
		t.Fatalf("control refused %v %v", rep, err)
	}
	_, _ = io.WriteString(c, "GET /control HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("control: %v %v", resp, err)
	}

	time.Sleep(100 * time.Millisecond)
	heads, odd := up.snapshot()
	for _, o := range odd {
		t.Errorf("AMBIGUOUS FRAMING reached the upstream: %s", o)
	}
	for _, hd := range heads {
		t.Logf("upstream head %q %q", hd.line, hd.fields)
		for _, f := range hd.fields {
			if strings.HasPrefix(strings.ToLower(f), "host:") && !strings.EqualFold(strings.TrimSpace(f[5:]), "allowed.test") {
				t.Errorf("ESCAPE: the upstream got a request for %q: %q", f, hd.line)
			}
		}
		if strings.Contains(strings.ToLower(hd.line), "evil") || !strings.HasPrefix(hd.line, "GET ") || strings.Contains(hd.line, "PRI") {
			t.Errorf("ESCAPE: the upstream read a request line %q", hd.line)
		}
	}
	for _, a := range h.dial.dials() {
		if a.Addr() == addrOther {
			t.Errorf("ESCAPE: the proxy dialled evil.test's address %s", a)
		}
	}
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}
