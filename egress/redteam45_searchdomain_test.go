package egress

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// TestRedteam45SearchDomainDeniedName: the policy judges the name the
// sandbox wrote, normalised (normaliseName: lower case, the trailing dot
// dropped), and connect then hands that name to the system resolver
// (net.DefaultResolver.LookupNetIP). A name with fewer dots than the
// resolver's ndots (1 by default, 5 in Kubernetes pods), or one that does
// not resolve as written, is looked up with the resolv.conf search
// domains appended: the proxy connects to another host than the one the
// policy judged. With "search corp.test" (a developer's laptop on a
// corporate network, any Kubernetes pod), Denied "secret.corp.test" is
// reached as "secret", which an allow list of "*" (or OnRequest, shown
// only "secret") lets through. Even a name written absolute ("secret.")
// loses its dot before the lookup, so no spelling the sandbox can choose
// is safe from the search list. The guard still judges the address, so
// this reaches denied names, not private addresses.
//
// Severity: medium (a host the policy denies by name is connected to;
// needs a search domain on the host and an allow list or OnRequest that
// admits the short name).
// Code at fault: connect (connect.go): p.resolver.LookupNetIP(ctx, "ip",
// t.name) with a relative name; the fix is to resolve t.name+"." (an
// absolute name, which no resolver extends) or refuse names the search
// list would extend.
// Control: "secret.corp.test" itself is refused by its Denied pattern
// without a lookup.
//
// The test runs itself again in a new mount and network namespace with
// its own /etc/resolv.conf ("search corp.test", nameserver 127.0.0.1) and
// a DNS server of its own on that loopback; nothing leaves the namespace.
//
// Found by red-team round 45 (medium). Fixed: connect resolves the name the
// policy judged, rooted (t.name+"."); the test resolver refuses a name
// that is not rooted.
func TestRedteam45SearchDomainDeniedName(t *testing.T) {
	if os.Getenv("RT45B_SEARCH_INNER") == "1" {
		rt45bSearchInner(t)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root for a mount and network namespace")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1)")
	}
	dir := t.TempDir()
	rc := filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(rc, []byte("nameserver 127.0.0.1\nsearch corp.test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `mount --bind "$1" /etc/resolv.conf && ip link set lo up && exec "$2" -test.run '^TestRedteam45SearchDomainDeniedName$' -test.v -test.count=1`
	cmd := exec.Command(unshare, "-m", "-n", "--propagation", "private", "sh", "-c", script, "sh", rc, os.Args[0])
	cmd.Env = append(os.Environ(), "RT45B_SEARCH_INNER=1")
	out, err := cmd.CombinedOutput()
	t.Logf("inner run:\n%s", out)
	if err != nil {
		if !strings.Contains(string(out), "--- FAIL") {
			t.Skipf("could not run in a new namespace: %v", err)
		}
		t.Error("the inner run failed (see its output)")
	}
}

// rt45bDNS is a DNS server on 127.0.0.1:53 that knows one A record and
// records every question.
type rt45bDNS struct {
	mu   sync.Mutex
	asks []string
}

func (d *rt45bDNS) serve(t *testing.T, records map[string]netip.Addr) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:53")
	if err != nil {
		t.Fatalf("DNS server: %v", err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var m dnsmessage.Message
			if m.Unpack(buf[:n]) != nil || len(m.Questions) != 1 {
				continue
			}
			q := m.Questions[0]
			name := strings.ToLower(q.Name.String())
			d.mu.Lock()
			d.asks = append(d.asks, q.Type.String()+" "+name)
			d.mu.Unlock()
			m.Response, m.Authoritative, m.RecursionAvailable = true, true, true
			a, ok := records[name]
			switch {
			case !ok:
				m.RCode = dnsmessage.RCodeNameError
			case q.Type == dnsmessage.TypeA:
				m.Answers = []dnsmessage.Resource{{
					Header: dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 5},
					Body:   &dnsmessage.AResource{A: a.As4()},
				}}
			}
			if b, err := m.Pack(); err == nil {
				_, _ = pc.WriteTo(b, from)
			}
		}
	}()
}

func (d *rt45bDNS) questions() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.asks...)
}

func rt45bSearchInner(t *testing.T) {
	secret := netip.MustParseAddr("192.0.2.66")
	dns := &rt45bDNS{}
	dns.serve(t, map[string]netip.Addr{"secret.corp.test.": secret})

	marker := "MARKER-rt45-secret.corp.test\n"
	up := tcpServer(t, func(c net.Conn) {
		_, _ = io.WriteString(c, marker)
		_, _ = io.Copy(io.Discard, c)
	})
	dial := &redirectDialer{}
	dial.route(ap(secret, 443), up)
	sink := &recorder{}
	// The system resolver, as in production (Config.Resolver unset).
	p, err := New(Config{
		Policy: Policy{Allowed: []string{"*"}, Denied: []string{"secret.corp.test"}},
		Dial:   dial.Dial,
		Sink:   sink,
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = p.Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	connect := func(target string) (int, string, string) {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(8 * time.Second))
		_, _ = io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
		if err != nil {
			t.Fatalf("CONNECT %s: %v", target, err)
		}
		if resp.StatusCode != 200 {
			return resp.StatusCode, resp.Header.Get("X-Agentbox-Deny"), ""
		}
		line, _ := br.ReadString('\n')
		return 200, "", line
	}

	// Control: the denied name is refused as written, never resolved.
	if st, rule, _ := connect("secret.corp.test:443"); st != 403 || rule != "deny:secret.corp.test" {
		t.Fatalf("control: CONNECT secret.corp.test:443: %d %q, want 403 deny:secret.corp.test", st, rule)
	}
	// Premise: the namespace's resolver extends a short name with the
	// search domain (the lookup that reaches our DNS server).
	if addrs, err := (&net.Resolver{}).LookupNetIP(ctx, "ip", "secret"); err != nil || len(addrs) == 0 || addrs[0] != secret {
		t.Fatalf("premise: the system resolver does not extend \"secret\" with the search domain: %v %v", addrs, err)
	}

	for _, target := range []string{"secret:443", "SECRET.:443"} {
		st, rule, got := connect(target)
		if st == 200 && got == marker {
			t.Errorf("ESCAPE: CONNECT %s reached secret.corp.test (%s), which the policy denies: read %q; DNS questions %v",
				target, secret, strings.TrimSpace(got), dns.questions())
		} else {
			t.Logf("CONNECT %s: %d %s", target, st, rule)
		}
	}
	for _, d := range sink.all() {
		t.Logf("decision: %s %s:%d addr %v allowed %v rule %s", d.Proto, d.Host, d.Port, d.Addr, d.Allowed, d.Rule)
	}
}
