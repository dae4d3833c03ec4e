//go:build race

package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox/vault"
)

// TestRedteam56LateMaskRace (built and run only with -race: the race
// detector is what fails it): round 55's lateMask (egress/latemask.go)
// brings a stream's mask up to date as values go out on other
// connections: it appends each to the relay's echoMask
// (recallInto → echoMask.add) and stacks a new maskReader over the one
// before. A maskReader holding a tail reads its source on a goroutine of
// its own (maskReader.fill), so the reader below it — which masks with
// the same echoMask, iterating m.values and writing m.hits — runs
// there, while lateMask, on the relay's goroutine, appends the next
// value to m.values with no lock. With three credentials bound to the
// host going out one after another while a stream runs (a long-lived
// event stream, a log tail), the slices are read and written at once: a
// torn slice header can walk past the array, and two masks reporting a
// hit at once write the hits map at once, which Go answers with "fatal
// error: concurrent map writes", ending the process.
//
// Attack: credentials R0, R1, R2 bound to HOST; tunnel B: GET /events (a
// stream of short events 300 ms apart, each repeating the last
// Authorization the host stored), opened before any value went out;
// tunnels A0..A2 send the three placeholders at intervals.
//
// Why it works: egress/latemask.go:(*lateMask).Read calls recallInto
// (echoMask.add: m.values, m.owners) on the relay's goroutine while
// egress/echo.go:(*maskReader).fill's goroutine runs the lower
// maskReader's got → echoMask.maskAfter (reads m.values, m.hit writes
// m.hits); echoMask has no lock and nothing orders the two.
//
// Severity: low (a data race on the mask: memory safety in principle,
// a crash of the agentbox process on concurrent map writes), for three or
// more credentials bound to one host. Every event is masked (the
// control: no value comes through).
//
// Found by red-team round 56. Fixed: egress/echo.go (echoMask.mu guards the values and hits).
func TestRedteam56LateMaskRace(t *testing.T) {
	const host = "rt56b-race.test"
	a := netip.MustParseAddr("203.0.113.169")
	vals := []string{"sk-live-56RACE-one-0123456789ab", "sk-live-56RACE-two-0123456789ab", "sk-live-56RACE-three-0123456789"}
	var auth authLog
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			auth.record(r)
			_, _ = io.WriteString(w, "ok\n")
		case "/events":
			for range 14 {
				fmt.Fprintf(w, "d:%s\n", auth.last())
				http.NewResponseController(w).Flush()
				time.Sleep(300 * time.Millisecond)
			}
		}
	})
	var phs []string
	e := newCredEnv(t, func(c *Config) {
		c.Policy.Allowed = append(c.Policy.Allowed, host)
		for i, v := range vals {
			name := fmt.Sprintf("RT56B_R%d", i)
			ph, err := NewPlaceholder(name)
			if err != nil {
				t.Fatal(err)
			}
			phs = append(phs, ph)
			c.Credentials = append(c.Credentials, Credential{Name: name, Placeholder: ph, Hosts: []string{host},
				Value: func(context.Context) (vault.Secret, error) { return vault.NewSecret([]byte(v)), nil }})
		}
	})
	e.h.res.set(host, a)
	e.serveTLS(t, a, 443, handler, host)

	tb, bb := e.interceptedConn(t, host+":443")
	defer tb.Close()
	fmt.Fprintf(tb, "GET /events HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	resp, err := http.ReadResponse(bb, &http.Request{Method: "GET"})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("premise: events: %v %v", resp, err)
	}
	done := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(bufio.NewReader(resp.Body))
		done <- string(b)
	}()
	for i, ph := range phs {
		time.Sleep(time.Duration(450+170*i) * time.Millisecond)
		if r, body, _ := doRaw(t, e, host, "/login", map[string]string{"Authorization": "Bearer " + ph}); r.StatusCode != 200 || body != "ok\n" {
			t.Fatalf("login %d: %d %q", i, r.StatusCode, body)
		}
	}
	_ = tb.SetReadDeadline(time.Now().Add(10 * time.Second))
	out := <-done
	g := auth.got()
	if len(g) != 3 || g[2] != "Bearer "+vals[2] {
		t.Fatalf("premise: the upstream did not get the injected values: %q", g)
	}
	if !strings.Contains(out, "d:Bearer *") {
		t.Fatalf("premise: the stream did not repeat a value after it went out: %q", out)
	}
	// Control: every value is masked.
	for _, v := range vals {
		if strings.Contains(out, v) {
			t.Fatalf("control: a value came through: %q", out)
		}
	}
}
