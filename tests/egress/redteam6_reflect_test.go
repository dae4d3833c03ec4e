//go:build linux

package egress_test

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentbox-dev/agentbox"
)

// rt6ReflectPort is where the upstream namespace serves a reflecting
// HTTPS server on allowedAddr, written byte by byte: it repeats the
// request's headers back, as echo endpoints and some error pages do.
const rt6ReflectPort = 8447

func init() {
	if os.Getenv(envRole) == roleUpstream {
		go serveRT6Reflector(os.Getenv(envDir))
	}
}

func serveRT6Reflector(dir string) {
	l := listenAllowed(rt6ReflectPort, "redteam6 reflector")
	if l == nil {
		return
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, leafFileName), filepath.Join(dir, keyFileName))
	if err != nil {
		fmt.Fprintln(os.Stderr, "redteam6 reflector:", err)
		return
	}
	tl := tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
	for {
		c, err := tl.Accept()
		if err != nil {
			return
		}
		go rt6Reflect(c)
	}
}

// rt6Reflect answers the requests of one connection:
//
//   - /rt6-json: the request's headers as compact JSON (Go's
//     json.Marshal of r.Header), for every method: like a hand-written
//     echo endpoint (or Python's BaseHTTPRequestHandler with do_HEAD =
//     do_GET), it sends the body to HEAD too.
//   - /rt6-trailer: a chunked response that names the X-Api-Key it got as
//     the trailer it will send (Trailer: VALUE), and repeats it in X-Echo.
func rt6Reflect(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		got := "placeholder"
		if v := req.Header.Get("X-Api-Key"); v != "" && !strings.HasPrefix(v, "agentbox-placeholder-") {
			got = "real"
		}
		var out string
		switch req.URL.Path {
		case "/rt6-json":
			b, _ := json.Marshal(req.Header)
			b = append(b, '\n')
			out = fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Got: %s\r\nContent-Length: %d\r\n\r\n%s", got, len(b), b)
		case "/rt6-trailer":
			v := req.Header.Get("X-Api-Key")
			out = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Got: " + got + "\r\nX-Echo: " + v + "\r\nTrailer: " + v + "\r\n\r\n" +
				"3\r\nok\n\r\n0\r\n\r\n"
		case "/rt6-badheader":
			// A response head that net/http cannot parse, quoting the
			// value: a header line without its colon.
			out = "HTTP/1.1 401 Unauthorized\r\nX-Got: " + got + "\r\nX-Rejected-Token " + req.Header.Get("X-Api-Key") + "\r\nContent-Length: 0\r\n\r\n"
		case "/rt6-namevalue":
			// The value as a header's name and its value.
			v := req.Header.Get("X-Api-Key")
			out = "HTTP/1.1 200 OK\r\nX-Got: " + got + "\r\n" + v + ": " + v + "\r\nContent-Length: 3\r\n\r\nok\n"
		case "/rt6-everywhere":
			// The value in an interim response, the status line, a
			// redirect, a cookie, a body split mid-value across chunks sent
			// apart, and a trailer.
			v := req.Header.Get("X-Api-Key")
			h := len(v) / 2
			parts := []string{
				"HTTP/1.1 103 Early Hints\r\nLink: </" + v + ">; rel=preload\r\n\r\n",
				"HTTP/1.1 302 Found " + v + "\r\nX-Got: " + got + "\r\nLocation: https://allowed.test/?k=" + v + "\r\nSet-Cookie: s=" + v + "; Path=/\r\n" +
					"Transfer-Encoding: chunked\r\nTrailer: X-Trailing\r\n\r\n",
				fmt.Sprintf("%x\r\nbody=%s\r\n", h+5, v[:h]),
				fmt.Sprintf("%x\r\n%s\n\r\n", len(v)-h+1, v[h:]),
				"0\r\nX-Trailing: " + v + "\r\n\r\n",
			}
			for _, part := range parts[:len(parts)-1] {
				if _, err := io.WriteString(c, part); err != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
			out = parts[len(parts)-1]
		default:
			out = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nplain\n"
		}
		if _, err := io.WriteString(c, out); err != nil || req.Close {
			return
		}
	}
}

// rt6ReflectPy speaks raw HTTP over the intercepted tunnel and prints
// every byte the proxy hands back.
const rt6ReflectPy = `import os, socket, ssl, sys

PROXY = ("127.0.0.1", 3128)
PH = os.environ["API_TOKEN"]
HOST = "allowed.test:RT6PORT"

def tls():
    s = socket.create_connection(PROXY, timeout=15)
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (HOST, HOST)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        c = s.recv(1)
        if not c:
            break
        head += c
    return ssl.create_default_context().wrap_socket(s, server_hostname="allowed.test")

def drain(s):
    data = b""
    s.settimeout(5)
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            data += c
    except (socket.timeout, OSError, ssl.SSLError):
        pass
    return data.decode("latin-1")

which = sys.argv[1]
t = tls()
if which == "get":
    t.sendall(("GET /rt6-json HTTP/1.1\r\nHost: %s\r\nX-Api-Key: %s\r\nConnection: close\r\n\r\n" % (HOST, PH)).encode())
elif which == "head_then_get":
    # HEAD carrying the value, then a request without one on the same
    # connection: the body the server sent to HEAD is read as the
    # second response.
    t.sendall(("HEAD /rt6-json HTTP/1.1\r\nHost: %s\r\nX-Api-Key: %s\r\n\r\n" % (HOST, PH)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        c = t.recv(1)
        if not c:
            break
        head += c
    print(head.decode("latin-1"))
    t.sendall(("GET /rt6-plain HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % HOST).encode())
elif which.startswith("/"):
    t.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nX-Api-Key: %s\r\nConnection: close\r\n\r\n" % (which, HOST, PH)).encode())
elif which == "trailer":
    t.sendall(("GET /rt6-trailer HTTP/1.1\r\nHost: %s\r\nX-Api-Key: %s\r\nConnection: close\r\n\r\n" % (HOST, PH)).encode())
print(drain(t))
`

// rt6Reflecting starts a Manager whose credential API_TOKEN is bound to
// the reflector, and returns a function that runs the python client's case
// which in a sandbox and returns what it printed.
func rt6Reflecting(t *testing.T) func(which string) string {
	t.Helper()
	run, _ := rt6ReflectingWith(t, fixedProvider{})
	return run
}

// rt6ReflectingWith is rt6Reflecting with the provider p; it also returns
// a function that gives the proxy's decisions so far.
func rt6ReflectingWith(t *testing.T, p agentbox.CredentialProvider) (func(which string) string, func() []agentbox.NetworkDecision) {
	t.Helper()
	t.Setenv("SSL_CERT_FILE", filepath.Join(workDir, caFileName))
	py := filepath.Join(workDir, "redteam6_reflect.py")
	if err := os.WriteFile(py, []byte(strings.ReplaceAll(rt6ReflectPy, "RT6PORT", fmt.Sprint(rt6ReflectPort))), 0o644); err != nil {
		t.Fatal(err)
	}
	host := fmt.Sprintf("allowed.test:%d", rt6ReflectPort)
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	cfg.Network.AllowedDomains = []string{host}
	cfg.Network.Resolver = newResolver()
	cfg.Credentials = []agentbox.Credential{{Name: "API_TOKEN", Hosts: []string{host}}}
	cfg.CredentialProvider = p
	var mu sync.Mutex
	var decisions []agentbox.NetworkDecision
	cfg.Network.OnDecision = func(d agentbox.NetworkDecision) {
		mu.Lock()
		defer mu.Unlock()
		decisions = append(decisions, d)
	}
	snapshot := func() []agentbox.NetworkDecision {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(decisions)
	}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	run := func(which string) string {
		t.Helper()
		var out string
		// The reflector may still be starting.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			res, err := m.ExecArgs(ctxT(t, 60e9), "python3", []string{py, which}, agentbox.WithApproved())
			if err != nil {
				t.Fatalf("%s: %v", which, err)
			}
			out = res.Stdout + res.Stderr
			if strings.Contains(out, "HTTP/1.1 ") || time.Now().After(deadline) {
				break
			}
		}
		t.Logf("%s:\n%s", which, out)
		return out
	}
	return run, snapshot
}

// rt6Leaked reports whether out holds the value in any case: header names
// come back canonicalised (the mask itself matches names in either case).
func rt6Leaked(out string) bool {
	return strings.Contains(strings.ToLower(out), strings.ToLower(testSecret))
}

// rt6Control: the value reaches the reflector, whose JSON echo of it in
// a body comes back masked.
func rt6Control(t *testing.T, run func(string) string) {
	t.Helper()
	out := run("get")
	masked := strings.Repeat("*", len(testSecret))
	if !strings.Contains(out, "X-Got: real") || !strings.Contains(out, `"X-Api-Key":["`+masked+`"]`) {
		t.Errorf("control: the value did not reach the upstream, or its echo did not come back masked")
	}
	if rt6Leaked(out) {
		t.Errorf("ESCAPE: get: the real value reached the sandbox")
	}
}

// TestNetRedteam6ReflectTrailer: the upstream names the injected value as
// a trailer field it will send (Trailer: VALUE). net/http's ReadResponse
// moves the names of a chunked response's Trailer header out of
// resp.Header into resp.Trailer; the proxy masked resp.Trailer only once
// the body had been read, after resp.Write had sent "Trailer: NAME" (the
// canonicalised value) in the head. Trailer names are masked with the head
// now.
func TestNetRedteam6ReflectTrailer(t *testing.T) {
	inNetns(t)
	run := rt6Reflecting(t)
	rt6Control(t, run)
	out := run("trailer")
	if !strings.Contains(out, "X-Got: real") || !strings.Contains(out, "X-Echo: "+strings.Repeat("*", len(testSecret))) {
		t.Errorf("trailer: control: the upstream did not get the real value, or its echo in X-Echo was not masked")
	}
	if rt6Leaked(out) {
		t.Errorf("ESCAPE: the real value of the credential reached the sandbox in a chunked response's Trailer header")
	}
}

// TestNetRedteam6ReflectHeadBody: a HEAD carrying the value, to an
// upstream that sends its body to HEAD too (a hand-written echo endpoint,
// Python's BaseHTTPRequestHandler with do_HEAD = do_GET). The proxy reads
// no body for HEAD (relay.exchange, http.ReadResponse with the HEAD
// request), so the echo stays in the upstream connection's buffer and is
// read as the response to the next request on the tunnel, which carried
// no value and so had no mask: it came back quoted in the 502 of a
// malformed response (bytes that form a response would come back whole).
// The values injected on a connection are masked for its life now.
func TestNetRedteam6ReflectHeadBody(t *testing.T) {
	inNetns(t)
	run := rt6Reflecting(t)
	rt6Control(t, run)
	out := run("head_then_get")
	if !strings.Contains(out, "X-Got: real") {
		t.Errorf("head_then_get: control: the upstream did not get the real value")
	}
	if rt6Leaked(out) {
		t.Errorf("ESCAPE: the real value of the credential reached the sandbox: the body an upstream sent to HEAD was read, unmasked, as the next response")
	}
}
