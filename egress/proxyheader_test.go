package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestReadFirstFlightProxyHeader(t *testing.T) {
	fronted := string(buildHello(sniExt("evil.test")))
	tests := []struct {
		name   string
		in     string
		header bool
		raw    string // what is read of a flight that is no header
	}{
		{name: "version 1, TCP4", in: "PROXY TCP4 192.0.2.1 192.0.2.10 1234 443\r\n" + fronted, header: true},
		{name: "version 1, UNKNOWN", in: "PROXY UNKNOWN\r\n" + fronted, header: true},
		{name: "version 1 signature alone", in: "PROXY ", header: true},
		{name: "version 2", in: "\r\n\r\n\x00\r\nQUIT\n\x21\x11\x00\x0c" + strings.Repeat("\x01", 12) + fronted, header: true},
		{name: "version 1 cut short", in: "PROX", raw: "PROX"},
		{name: "version 2 cut short", in: "\r\n\r\n\x00", raw: "\r\n\r\n\x00"},
		{name: "PROXY without a blank", in: "PROXYX", raw: "PROXYX"},
		{name: "Redis PING", in: "PING\r\n", raw: "PI"},
		{name: "HTTP PUT", in: "PUT / HTTP/1.1\r\n", raw: "PU"},
		{name: "HTTP/2 preface", in: "PRI * HTTP/2.0\r\n", raw: "PRI"},
		{name: "blank lines, then a request", in: "\r\n\r\nGET / HTTP/1.1\r\n", raw: "\r\n\r\nG"},
		{name: "SSH", in: "SSH-2.0-x\r\n", raw: "S"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, hello, err := readFirstFlight(strings.NewReader(tt.in))
			if !bytes.HasPrefix([]byte(tt.in), raw) || hello != nil {
				t.Fatalf("raw %q (not a prefix of the input?), hello %+v", raw, hello)
			}
			if tt.header {
				if !errors.Is(err, errProxyHeader) {
					t.Fatalf("PROXY header read as %q, %v", raw, err)
				}
				return
			}
			if err != nil || string(raw) != tt.raw {
				t.Fatalf("read %q, %v; want %q", raw, err, tt.raw)
			}
		})
	}
}

// TestProxyHeaderTunnelRefused: a PROXY protocol header ahead of a fronted
// ClientHello is refused before any byte goes upstream, also when the
// signature comes in pieces slower than the first flight waits.
func TestProxyHeaderTunnelRefused(t *testing.T) {
	hello := string(realClientHello(t, &tls.Config{ServerName: "evil.test", InsecureSkipVerify: true}))
	for _, c := range []struct {
		name   string
		pieces []string
	}{
		{"version 1", []string{"PROXY TCP4 192.0.2.1 192.0.2.10 1234 443\r\n" + hello}},
		{"version 1 in pieces", []string{"PROX", "Y TCP4 192.0.2.1 192.0.2.10 1234 443\r\n" + hello}},
		{"version 2", []string{"\r\n\r\n\x00\r\nQUIT\n\x21\x11\x00\x0c" + strings.Repeat("\x01", 12) + hello}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Config{Policy: Policy{Allowed: []string{"allowed.test"}}})
			got := upstreamRecorder(t, h, 443, "")
			conn := mustDialProxy(t, h.addr)
			io.WriteString(conn, "CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n")
			br := bufio.NewReader(conn)
			if resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"}); err != nil || resp.StatusCode != 200 {
				t.Fatalf("CONNECT: %v %v", resp, err)
			}
			for i, piece := range c.pieces {
				if i > 0 {
					time.Sleep(3 * firstFlightQuiet)
				}
				_, _ = conn.Write([]byte(piece))
			}
			if b := <-got; b != "" {
				t.Errorf("the upstream received %d bytes, starting %q", len(b), b[:min(len(b), 48)])
			}
			ds := h.sink.waitFor(t, 2)
			if ds[1].Allowed || ds[1].Rule != RuleProxyProtocol || !strings.Contains(ds[1].Reason, "PROXY protocol") {
				t.Errorf("decisions %+v", ds)
			}
		})
	}
}
