package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/vault"
)

// TestRedteam62StoredEchoOverRawProtocolOnAnotherPort: round 58 made a
// TLS tunnel to any port of a host a credential is bound to intercepted, so
// that "echoes of a credential are masked, once its value went out, in
// every response from a host it is bound to (on any of its ports), on any
// connection" (README, known limits). But a tunnel to that host whose
// first flight is neither TLS nor HTTP (SSH, Redis, PostgreSQL, a debug or
// admin console on a raw TCP port), or whose upstream speaks first (a
// banner), is still spliced: its bytes are copied unread, and a stored
// value the host repeats there reaches the sandbox in the clear.
//
// Attack: credential bound to HOST (443), policy Allowed ["HOST",
// "HOST:2222"]. Tunnel 1: CONNECT HOST:443, GET /login with
// "Authorization: Bearer PLACEHOLDER" (injected, stored by the host).
// Tunnel 2: CONNECT HOST:2222, send "SSH-2.0-rt62c\r\n" (not TLS, not
// HTTP); the host's console answers with the last Authorization it
// stored: the value arrives unmasked. Tunnel 3: CONNECT HOST:2525, send
// nothing; the host's banner holds the stored value: unmasked too.
//
// Why it works: egress/tunnel.go:(*Proxy).tunnelFor does choose
// interceptTunnel for every port of a bound host (creds.echoes), but
// egress/intercept.go:(*Proxy).runTunnel intercepts only a TLS hello
// (and relays plain HTTP through relayPlain with the echoes); every other
// first flight goes to spliceRest, and an upstream that speaks first is
// pumped from the start: both use (*tunnel).pump, a bare copy with no
// echo mask, and p.creds.echoes(tgt) is never consulted.
//
// Severity: high (the credential's plaintext reaches the sandbox), in the
// threat model of rounds 52–58 (a bound host that stores a request's
// headers and shows them on another connection; round 58's fix for TLS on
// another port). The same question over HTTPS on 443 is masked (control).
//
// Found by red-team round 62. Fixed: an intercepted tunnel's raw
// bytes (neither TLS nor HTTP) come down through a lateMask
// (tunnel.down, rawmask.go).
func TestRedteam62StoredEchoOverRawProtocolOnAnotherPort(t *testing.T) {
	const (
		host  = "rt62c-rawport.test"
		value = "sk-live-62RAWPORTabcdef0123456789"
	)
	a := netip.MustParseAddr("203.0.113.162")
	var auth authLog
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			auth.record(r)
			_, _ = io.WriteString(w, "ok\n")
		case "/debug/last-request":
			fmt.Fprintf(w, "authorization=%s\n", auth.last())
		}
	})
	ph, err := NewPlaceholder("RT62C_KEY")
	if err != nil {
		t.Fatal(err)
	}
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, host, host+":2222", host+":2525")
		c.Credentials = append(c.Credentials, Credential{Name: "RT62C_KEY", Placeholder: ph, Hosts: []string{host},
			Value: func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(value)), nil }})
	})
	e.h.res.set(host, a)
	e.serveTLS(t, a, 443, handler, host)

	// A console on 2222: reads a line, answers with the stored header.
	console := rt62cListen(t, func(c net.Conn) {
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return
		}
		fmt.Fprintf(c, "hello %s last-authorization=%s\r\n", strings.TrimSpace(line), auth.last())
	})
	e.h.dial.route(ap(a, 2222), console)
	// A service on 2525 that speaks first: its banner holds the header.
	banner := rt62cListen(t, func(c net.Conn) {
		fmt.Fprintf(c, "220 rt62c ready last-authorization=%s\r\n", auth.last())
		_, _ = io.Copy(io.Discard, c)
	})
	e.h.dial.route(ap(a, 2525), banner)

	if resp, body, _ := doRaw(t, e, host, "/login", map[string]string{"Authorization": "Bearer " + ph}); resp.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("login: %d %q", resp.StatusCode, body)
	}
	g := auth.got()
	if len(g) != 1 || g[0] != "Bearer "+value {
		t.Fatalf("premise: the upstream did not get the injected value: %q", g)
	}
	// Control: on 443, on another tunnel, the stored value is masked.
	if _, body, _ := doRaw(t, e, host, "/debug/last-request", nil); strings.Contains(body, value) || !strings.Contains(body, strings.Repeat("*", len(value))) {
		t.Fatalf("control: HTTPS on 443: %q", body)
	}

	// Attack 1: a client-first plain protocol on 2222.
	line := rt62cTunnelLine(t, e, host+":2222", "SSH-2.0-rt62c\r\n")
	if !strings.HasPrefix(line, "hello SSH-2.0-rt62c last-authorization=") {
		t.Fatalf("premise: the console on %s:2222 did not answer through the tunnel: %q", host, line)
	}
	if strings.Contains(line, value) {
		t.Errorf("LEAK: the sandbox read the credential's value from the host it is bound to, port 2222 (SSH-like first flight): %q", line)
	}

	// Attack 2: a server-first protocol on 2525.
	line = rt62cTunnelLine(t, e, host+":2525", "")
	if !strings.HasPrefix(line, "220 rt62c ready last-authorization=") {
		t.Fatalf("premise: the banner on %s:2525 did not come through the tunnel: %q", host, line)
	}
	if strings.Contains(line, value) {
		t.Errorf("LEAK: the sandbox read the credential's value from the host it is bound to, port 2525 (server-first banner): %q", line)
	}
}

// rt62cListen serves each connection of a loopback listener with serve.
func rt62cListen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				serve(c)
			}()
		}
	}()
	return l.Addr().String()
}

// rt62cTunnelLine opens a CONNECT tunnel to target through the proxy,
// sends first (if any) and returns the first line that comes back.
func rt62cTunnelLine(t *testing.T, e *credEnv, target, first string) string {
	t.Helper()
	c := mustDialProxy(t, e.h.addr)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	cresp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
	if err != nil || cresp.StatusCode != 200 {
		t.Fatalf("premise: CONNECT %s: %v %v", target, cresp, err)
	}
	if first != "" {
		if _, err := io.WriteString(c, first); err != nil {
			t.Fatal(err)
		}
	}
	line, err := br.ReadString('\n')
	if err != nil {
		t.Logf("reading through the tunnel to %s: %v", target, err)
	}
	return line
}
