//go:build linux

package egress_test

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt25CEPort serves, on allowedAddr, an HTTPS upstream that repeats the
// X-Api-Key it got as the value of its response's Content-Encoding (the
// same threat model as /rt6-namevalue and /rt6-badheader: an upstream
// bound to the credential repeats the request's headers back, here in a
// field the proxy inspects before it masks anything).
const rt25CEPort = 8471

func init() {
	if os.Getenv(envRole) == roleUpstream {
		go serveRT25CE(os.Getenv(envDir))
	}
}

func serveRT25CE(dir string) {
	l := listenAllowed(rt25CEPort, "redteam25 content-encoding reflector")
	if l == nil {
		return
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, leafFileName), filepath.Join(dir, keyFileName))
	if err != nil {
		fmt.Fprintln(os.Stderr, "redteam25 reflector:", err)
		return
	}
	tl := tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
	for {
		c, err := tl.Accept()
		if err != nil {
			return
		}
		go func(c net.Conn) {
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(30 * time.Second))
			req, err := http.ReadRequest(bufio.NewReader(c))
			if err != nil {
				return
			}
			v := req.Header.Get("X-Api-Key")
			var out string
			switch req.URL.Path {
			case "/rt25-ce":
				out = "HTTP/1.1 200 OK\r\nContent-Encoding: " + v + "\r\nContent-Length: 3\r\n\r\nok\n"
			default: // control: the value echoed in an ordinary header
				out = "HTTP/1.1 200 OK\r\nX-Echo: " + v + "\r\nContent-Length: 3\r\n\r\nok\n"
			}
			_, _ = io.WriteString(c, out)
		}(c)
	}
}

// TestRedteam25EgressContentEncodingQuoted: the upstream bound to a
// credential answers a request carrying the injected value with
// "Content-Encoding: VALUE". maskResponse (egress/echo.go) calls
// hiddenCoding before it masks the header, and the refusal's reason
// quotes the coding as the upstream wrote it ("the upstream compressed its
// response (Content-Encoding: VALUE) although asked not to"): the 502 the
// sandbox reads, and the credential-leak-free Decision recorded for the
// audit log, both carry the real value in the clear.
//
// Why it matters: the sandbox must never see a vault value, and no
// Decision or log record may hold one (Credential's doc comment); every
// other place the response repeats the value is masked, and the
// unparseable-response path already withholds the upstream's text for
// this reason.
//
// Severity: medium (needs an upstream that repeats the value in that
// field; the sandboxed command then reads the secret directly, and it is
// written into the audit log).
//
// Fix: mask the header before judging its codings (or never quote an
// upstream's field in a reason while a mask is active, as readResponse's
// error path already does).
//
// Fixed: a refusal names a coding, extension or upgrade only when it is a
// registered one (quoteToken, egress/echo.go); any other text of the
// upstream's field is withheld from the reason.
func TestRedteam25EgressContentEncodingQuoted(t *testing.T) {
	inNetns(t) // the upstream lives in the private namespaces only
	t.Setenv("SSL_CERT_FILE", filepath.Join(workDir, caFileName))
	host := fmt.Sprintf("allowed.test:%d", rt25CEPort)
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	cfg.Network.AllowedDomains = []string{host}
	cfg.Network.Resolver = newResolver()
	cfg.Credentials = []agentbox.Credential{{Name: "API_TOKEN", Hosts: []string{host}}}
	cfg.CredentialProvider = fixedProvider{}
	var mu sync.Mutex
	var decisions []agentbox.NetworkDecision
	cfg.Network.OnDecision = func(d agentbox.NetworkDecision) {
		mu.Lock()
		defer mu.Unlock()
		decisions = append(decisions, d)
	}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	run := func(path string) string {
		t.Helper()
		var out string
		script := `curl -sS -i --max-time 20 -H "X-Api-Key: $API_TOKEN" https://` + host + path
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			res, err := m.ExecArgs(ctxT(t, 60e9), "/bin/sh", []string{"-c", script}, agentbox.WithApproved())
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out = res.Stdout + res.Stderr
			if strings.Contains(out, "HTTP/1.1 ") || time.Now().After(deadline) {
				break
			}
		}
		t.Logf("%s:\n%s", path, out)
		return out
	}

	// Control: the value reaches the upstream and its echo in an
	// ordinary header comes back masked.
	out := run("/rt25-plain")
	if !strings.Contains(out, "X-Echo: "+strings.Repeat("*", len(testSecret))) {
		t.Errorf("control: the echo of the value did not come back masked")
	}
	if strings.Contains(out, testSecret) {
		t.Errorf("ESCAPE: control: the real value reached the sandbox")
	}

	out = run("/rt25-ce")
	if !strings.Contains(out, "502") {
		t.Errorf("the compressed-looking response was not refused")
	}
	if strings.Contains(out, testSecret) {
		t.Errorf("ESCAPE: the real value reached the sandbox in the refusal quoting the upstream's Content-Encoding")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, d := range decisions {
		if strings.Contains(fmt.Sprintf("%+v", d), testSecret) {
			t.Errorf("ESCAPE: a decision (for the audit log) holds the real value: %s", d.Reason)
		}
	}
}
