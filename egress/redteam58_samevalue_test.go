package egress

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/vault"
)

// TestRedteam58SameValueTwoCredentialsRunaway: two credentials bound to
// one host whose values are the same bytes — the same GitHub token as
// GH_TOKEN (what gh reads) and GITHUB_TOKEN (what most other tools
// read), both well-known names agentbox binds to GitHub's API — each
// injected once. From then on every response body from that host, on any
// connection, never reaches the client, and the proxy allocates without
// bound: the agentbox process's memory (charged to no sandbox) grows by a
// 33 KiB buffer per turn of a loop that never ends, gigabytes a second.
//
// Attack: credentials A and B, same value, both bound to HOST; GET / with
// "Authorization: Bearer A_PLACEHOLDER" and "X-Api-Key: B_PLACEHOLDER"
// (or each on a request of its own, on any connections). Any response
// with a body from HOST then hangs, and the proxy runs away. Here the
// proxy runs in a child test process that watches its own heap and exits
// past 512 MiB.
//
// Why it works: egress/echo.go:(*echoMask).add drops a value equal to one
// it holds, so B is never added to m.owners; (*echoMask).has(B) stays
// false, and egress/latemask.go:pending reports B as "went out and not in
// the mask yet" forever. (*lateMask).Read, finding pending after every
// read, stacks another maskReader (echoMask.reader: a 33 KiB buffer from
// maskBufs, never given back before wipe) over what it just read and
// reads again, in a `for` loop that returns only when nothing is
// pending: at the body's end each turn reads EOF at once, so the loop
// spins, allocating, and recallInto fetches B's value from the vault on
// every turn.
//
// Severity: medium (a denial of service of the host: the agentbox
// process's memory, outside every cgroup limit, until it or the host runs
// out; and every answer of a bound host stops), for two credentials with
// the same value bound to one host: a setup users make on purpose, and one
// the sandbox triggers by sending both placeholders. The control: the same
// request with two different values is answered.
//
// Found by red-team round 58. Fixed: egress/echo.go (echoMask.held: a
// credential whose value the mask holds for another counts as held).
func TestRedteam58SameValueTwoCredentialsRunaway(t *testing.T) {
	if os.Getenv("RT58C_SAMEVALUE_CHILD") == "1" {
		rt58cSameValueChild(t)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRedteam58SameValueTwoCredentialsRunaway$", "-test.count=1", "-test.v", "-test.timeout=80s")
	cmd.Env = append(os.Environ(), "RT58C_SAMEVALUE_CHILD=1")
	out, err := cmd.CombinedOutput()
	s := string(out)
	tail := s[max(0, len(s)-2000):]
	if !strings.Contains(s, "RT58C-CONTROL-OK") {
		t.Fatalf("control: two credentials with different values, both injected, were not answered (child err %v):\n%s", err, tail)
	}
	if !strings.Contains(s, "RT58C-PREMISE-SENT") {
		t.Fatalf("premise: the upstream did not get the same value in both headers (child err %v):\n%s", err, tail)
	}
	switch {
	case strings.Contains(s, "RT58C-RUNAWAY"):
		t.Errorf("the proxy's heap passed 512 MiB answering one small response once two credentials with the same value went out (child err %v):\n%s", err, tail)
	case strings.Contains(s, "RT58C-HANG"):
		t.Errorf("the response's body never reached the client once two credentials with the same value went out (child err %v):\n%s", err, tail)
	case !strings.Contains(s, "RT58C-ANSWERED"):
		t.Errorf("the attack's request was not answered (child err %v):\n%s", err, tail)
	}
}

// rt58cSameValueChild runs the proxy and the requests in the child.
func rt58cSameValueChild(t *testing.T) {
	// The watchdog: the runaway allocates fast; end the process long before
	// it hurts the machine.
	go func() {
		var ms runtime.MemStats
		for {
			time.Sleep(10 * time.Millisecond)
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > 512<<20 {
				fmt.Printf("RT58C-RUNAWAY heap=%d MiB\n", ms.HeapAlloc>>20)
				os.Exit(3)
			}
		}
	}()
	const (
		host   = "rt58c-samevalue.test"
		value  = "ghp_58SAMEVALUEabcdef0123456789ABCDEF"
		other  = "ghp_58OTHERVALUEabcdef0123456789ABCDE"
		addr   = "203.0.113.182"
		header = "X-Api-Key"
	)
	values := map[string]string{"RT58C_GH_TOKEN": value, "RT58C_GITHUB_TOKEN": value, "RT58C_DIFF_A": value, "RT58C_DIFF_B": other}
	ph := map[string]string{}
	var creds []Credential
	for _, n := range []string{"RT58C_GH_TOKEN", "RT58C_GITHUB_TOKEN", "RT58C_DIFF_A", "RT58C_DIFF_B"} {
		p, err := NewPlaceholder(n)
		if err != nil {
			t.Fatal(err)
		}
		ph[n] = p
		v := values[n]
		h := host
		if strings.HasPrefix(n, "RT58C_DIFF") {
			h = "ctl." + host
		}
		creds = append(creds, Credential{Name: n, Placeholder: p, Hosts: []string{h},
			Value: func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(v)), nil }})
	}
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, host, "ctl."+host)
		c.Credentials = append(c.Credentials, creds...)
	})
	a := netip.MustParseAddr(addr)
	e.h.res.mu.Lock()
	e.h.res.answers[host] = []netip.Addr{a}
	e.h.res.answers["ctl."+host] = []netip.Addr{a}
	e.h.res.mu.Unlock()
	var (
		mu  sync.Mutex
		got []string
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization")+"|"+r.Header.Get(header))
		mu.Unlock()
		if r.Host == host && r.Header.Get("Authorization") == "Bearer "+value && r.Header.Get(header) == value {
			fmt.Println("RT58C-PREMISE-SENT") // before the answer: the proxy may not live long after
		}
		_, _ = io.WriteString(w, "ok\n")
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{e.root.issue(t, host, "ctl."+host)}}
	srv.Config.ErrorLog = quietLog
	srv.StartTLS()
	t.Cleanup(srv.Close)
	e.h.dial.route(ap(a, 443), srv.Listener.Addr().String())

	ask := func(h, a, b string) (string, error) {
		tc, br := e.interceptedConn(t, h+":443")
		defer tc.Close()
		fmt.Fprintf(tc, "GET / HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n%s: %s\r\n\r\n", h, a, header, b)
		_ = tc.SetReadDeadline(time.Now().Add(3 * time.Second))
		resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
		if err != nil {
			return "", err
		}
		body, err := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, body), err
	}
	// Control: two credentials with different values, both injected.
	if s, err := ask("ctl."+host, ph["RT58C_DIFF_A"], ph["RT58C_DIFF_B"]); err != nil || s != "200 ok\n" {
		t.Fatalf("control: %q %v", s, err)
	}
	fmt.Println("RT58C-CONTROL-OK")

	// The attack: the same value under two names.
	s, err := ask(host, ph["RT58C_GH_TOKEN"], ph["RT58C_GITHUB_TOKEN"])
	mu.Lock()
	fmt.Printf("the upstream got %q\n", got)
	mu.Unlock()
	if err != nil {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("RT58C-HANG %q %v (heap %d MiB)\n", s, err, ms.HeapAlloc>>20)
		os.Exit(4) // the loop in the proxy never ends on its own
	}
	if s == "200 ok\n" {
		fmt.Println("RT58C-ANSWERED")
	}
}
