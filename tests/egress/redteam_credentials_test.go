//go:build linux

package egress_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentbox-dev/agentbox"
)

// rtCredPy speaks raw HTTP over TLS through the proxy, for what curl
// will not send: several requests in one TLS write, HTTP/1.0, an
// absolute-form target naming another host, and a plain-HTTP body whose
// placeholder is split across two writes and two chunks.
const rtCredPy = `import os, socket, ssl, sys, time

PROXY = ("127.0.0.1", 3128)
PH = os.environ["API_TOKEN"]

def tunnel(host, port):
    s = socket.create_connection(PROXY, timeout=10)
    s.sendall(("CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (host, port, host, port)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        c = s.recv(1)
        if not c:
            break
        head += c
    return s

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

def tls(host):
    s = tunnel(host, 443)
    return ssl.create_default_context().wrap_socket(s, server_hostname=host)

which = sys.argv[1]
if which == "pipelined":
    t = tls("allowed.test")
    t.sendall(("GET /echo-auth HTTP/1.1\r\nHost: allowed.test\r\nAuthorization: Bearer %s\r\n\r\n"
               "GET /rt-cred-second HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n" % PH).encode())
    print(drain(t))
elif which == "http10":
    t = tls("allowed.test")
    t.sendall(("GET /echo-auth HTTP/1.0\r\nHost: allowed.test\r\nAuthorization: Bearer %s\r\n\r\n" % PH).encode())
    print(drain(t))
elif which == "absolute_other":
    t = tls("allowed.test")
    t.sendall(("GET https://sub.allowed.test/rt-cred-abs HTTP/1.1\r\nHost: sub.allowed.test\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n" % PH).encode())
    print(drain(t))
elif which == "host_other":
    t = tls("allowed.test")
    t.sendall(("GET /rt-cred-hostother HTTP/1.1\r\nHost: sub.allowed.test\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n" % PH).encode())
    print(drain(t))
elif which == "split_body":
    s = socket.create_connection(PROXY, timeout=10)
    half = len(PH) // 2
    s.sendall(b"POST http://sub.allowed.test/rt-cred-split HTTP/1.1\r\nHost: sub.allowed.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    s.sendall(("%x\r\n%s\r\n" % (half + 4, "tok=" + PH[:half])).encode())
    time.sleep(0.5)
    s.sendall(("%x\r\n%s\r\n0\r\n\r\n" % (len(PH) - half, PH[half:])).encode())
    print(drain(s))
elif which == "split_body_tunnel":
    s = tunnel("sub.allowed.test", 80)
    half = len(PH) // 2
    s.sendall(b"POST /rt-cred-split2 HTTP/1.1\r\nHost: sub.allowed.test\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(PH))
    s.sendall(PH[:half].encode())
    time.sleep(0.5)
    s.sendall(PH[half:].encode())
    print(drain(s))
`

// TestNetRedteamCredentials: every way a sandboxed program has to get the
// real value of a credential bound to allowed.test back, or to send it
// anywhere else, with the injection to allowed.test itself as the control.
func TestNetRedteamCredentials(t *testing.T) {
	inNetns(t)
	t.Setenv("SSL_CERT_FILE", filepath.Join(workDir, caFileName))
	py := filepath.Join(workDir, "redteam_cred.py")
	if err := os.WriteFile(py, []byte(rtCredPy), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newResolver()
	var decisions []agentbox.NetworkDecision
	cfg := agentbox.DefaultConfig()
	cfg.ColdStart = true
	cfg.Network.AllowedDomains = []string{"allowed.test", "sub.allowed.test", allowedAddr}
	cfg.Network.Resolver = r
	cfg.Network.OnDecision = func(d agentbox.NetworkDecision) { decisions = append(decisions, d) }
	// No Header: Authorization and the headers of a credential's shape.
	cfg.Credentials = []agentbox.Credential{{Name: "API_TOKEN", Hosts: []string{"allowed.test"}}}
	cfg.CredentialProvider = fixedProvider{}
	m, err := agentbox.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	basic := base64.StdEncoding.EncodeToString([]byte("u:" + testSecret))
	secretForms := []string{testSecret, basic, strings.ToLower(testSecret), base64.StdEncoding.EncodeToString([]byte(testSecret))}
	run := func(label, script string) string {
		t.Helper()
		res, err := m.ExecArgs(ctxT(t, 90e9), "/bin/sh", []string{"-c", script}, agentbox.WithApproved())
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		out := res.Stdout + res.Stderr
		t.Logf("%s: exit %d\n%s", label, res.ExitCode, out)
		for _, f := range secretForms {
			if strings.Contains(out, f) {
				t.Errorf("ESCAPE: %s: the real value (as %q) reached the sandbox", label, f)
			}
		}
		return out
	}
	curl := `curl -sS --max-time 20 -D - `
	masked := strings.Repeat("*", len(testSecret))

	// Control: the value reaches the bound host, and its echo comes back masked.
	out := run("control", curl+`-H "Authorization: Bearer $API_TOKEN" https://allowed.test/echo-auth`)
	if !strings.Contains(out, "you sent Bearer "+masked) {
		t.Errorf("control: no masked echo")
	}
	// Basic credentials with the placeholder as the password: the echo is
	// the base64 of the real pair.
	out = run("basic", curl+`-u "u:$API_TOKEN" https://allowed.test/echo-auth`)
	if !strings.Contains(out, "you sent Basic ") {
		t.Errorf("basic: no echo")
	}
	run("lowercase_header", curl+`-H "authorization: bearer $API_TOKEN" https://allowed.test/echo-auth`)
	run("twice", curl+`-H "Authorization: Bearer $API_TOKEN$API_TOKEN" https://allowed.test/echo-auth`)
	run("x_api_key_and_auth", curl+`-H "X-Api-Key: $API_TOKEN" -H "Authorization: $API_TOKEN" https://allowed.test/echo-auth`)
	run("uppercase_host", curl+`-H "Authorization: Bearer $API_TOKEN" https://ALLOWED.TEST/echo-auth`)
	run("socks5", curl+`--socks5-hostname 127.0.0.1:3128 -H "Authorization: Bearer $API_TOKEN" https://allowed.test/echo-auth`)
	run("trace", curl+`-X TRACE -H "Authorization: Bearer $API_TOKEN" https://allowed.test/echo-auth`)
	run("pipelined", `python3 `+py+` pipelined`)
	run("http10", `python3 `+py+` http10`)
	out = run("absolute_other", `python3 `+py+` absolute_other`)
	if !strings.Contains(out, "403") {
		t.Errorf("absolute_other: not refused")
	}
	out = run("host_other", `python3 `+py+` host_other`)
	if !strings.Contains(out, "403") {
		t.Errorf("host_other: not refused")
	}
	// Elsewhere the placeholder stays a placeholder.
	run("other_host_echo", curl+`--cacert `+caFile()+` -H "Authorization: Bearer $API_TOKEN" https://sub.allowed.test/echo-auth`)
	run("ip_literal", curl+`-k -H "Host: allowed.test" -H "Authorization: Bearer $API_TOKEN" https://`+allowedAddr+`/rt-cred-ip`)
	run("plain_query_cookie", curl+`-b "session=$API_TOKEN" "http://sub.allowed.test/rt-cred-plain?k=$API_TOKEN"`)
	run("split_body", `python3 `+py+` split_body`)
	run("split_body_tunnel", `python3 `+py+` split_body_tunnel`)

	// The upstream: the value went to allowed.test only.
	for _, e := range upstreamEvents(t, "value=") {
		if strings.Contains(e, testSecret) && !strings.Contains(strings.ToLower(e), "host=allowed.test value=") {
			t.Errorf("ESCAPE: the real value went elsewhere: %q", e)
		}
	}
	// The tunnel to allowed.test's address was not intercepted: what came
	// with the request named allowed.test in Host was the placeholder.
	ev := upstreamEvents(t, "")
	for i, e := range ev {
		if strings.HasSuffix(e, "path=/rt-cred-ip") {
			if i+1 >= len(ev) || !strings.Contains(ev[i+1], "value=Bearer agentbox-placeholder-API_TOKEN-") {
				t.Errorf("ESCAPE: the IP-literal tunnel carried %q", ev[i+1:min(i+2, len(ev))])
			}
		}
	}
	if got := upstreamEvents(t, "host=allowed.test value=Bearer "+testSecret); len(got) == 0 {
		t.Errorf("control: the bound host never received the value")
	}
	// (A chunked body is checked as it streams, so split_body's head and
	// first chunk, half a placeholder, may have gone out: the
	// value never does.)
	for _, p := range []string{"/rt-cred-abs", "/rt-cred-hostother", "/rt-cred-split2", "/rt-cred-plain"} {
		if got := upstreamEvents(t, "path="+p); slicesContainsSuffix(got, "path="+p) {
			t.Errorf("a refused request reached the upstream: %q", got)
		}
	}
	for _, d := range decisions {
		if strings.Contains(d.Reason+d.Rule+d.Host, testSecret) {
			t.Errorf("ESCAPE: a decision holds the value: %+v", d)
		}
	}
}

func slicesContainsSuffix(ss []string, suffix string) bool {
	for _, s := range ss {
		if strings.HasSuffix(s, suffix) {
			return true
		}
	}
	return false
}
