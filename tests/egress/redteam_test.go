//go:build linux

package egress_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// rtPy sends raw bytes to the sandbox's proxy, case by case, and prints
// what came back: "== CASE", then "status N", "deny RULE", "body LINE"
// (upstream lines) and "socks reply N" lines. A case is a list of writes,
// with a pause between them.
const rtPy = `import socket, struct, sys, time

PROXY = ("127.0.0.1", 3128)
CRLF = "\r\n"

def req(line, *hdrs, body=""):
    return (line + CRLF + "".join(h + CRLF for h in hdrs) + CRLF + body).encode("utf-8")

C = {
    # userinfo: the host after the @ is the target
    "userinfo_control": [req("GET http://other.test@allowed.test/rt-userinfo-ok HTTP/1.1", "Host: allowed.test", "Connection: close")],
    "userinfo_other": [req("GET http://allowed.test@other.test/rt-bad-userinfo HTTP/1.1", "Host: other.test", "Connection: close")],
    "userinfo_port_other": [req("GET http://allowed.test:80@other.test/rt-bad-userinfo2 HTTP/1.1", "Host: other.test", "Connection: close")],
    "host_absolute_mismatch": [req("GET http://allowed.test/rt-bad-hostmm HTTP/1.1", "Host: other.test", "Connection: close")],
    "host_twice": [req("GET http://allowed.test/rt-bad-host2 HTTP/1.1", "Host: allowed.test", "Host: other.test", "Connection: close")],
    "obs_fold_host": [req("GET http://allowed.test/rt-bad-fold HTTP/1.1", "Host: allowed.test", " other.test", "Connection: close")],
    # smuggling a second request to other.test inside the first one's body
    "cl_te": [req("POST http://allowed.test/rt-clte HTTP/1.1", "Host: allowed.test", "Content-Length: 6", "Transfer-Encoding: chunked",
        body="0\r\n\r\nGET http://other.test/rt-bad-smug-clte HTTP/1.1\r\nHost: other.test\r\n\r\n")],
    "te_cl": [req("POST http://allowed.test/rt-tecl HTTP/1.1", "Host: allowed.test", "Transfer-Encoding: chunked", "Content-Length: 3",
        body="3c\r\nGET http://other.test/rt-bad-smug-tecl HTTP/1.1\r\nHost: other.test\r\nX: 1234\r\n\r\n0\r\n\r\n")],
    "te_space": [req("POST http://allowed.test/rt-tesp HTTP/1.1", "Host: allowed.test", "Content-Length: 5", "Transfer-Encoding : chunked",
        body="0\r\n\r\nGET http://other.test/rt-bad-smug-tesp HTTP/1.1\r\nHost: other.test\r\n\r\n")],
    "te_xchunked": [req("POST http://allowed.test/rt-tex HTTP/1.1", "Host: allowed.test", "Transfer-Encoding: xchunked", "Content-Length: 5",
        body="0\r\n\r\nGET http://other.test/rt-bad-smug-tex HTTP/1.1\r\nHost: other.test\r\n\r\n")],
    "dup_content_length": [req("POST http://allowed.test/rt-dupcl HTTP/1.1", "Host: allowed.test", "Content-Length: 0", "Content-Length: 60",
        body="GET http://other.test/rt-bad-smug-dupcl HTTP/1.1\r\nHost: other.test\r\n\r\n")],
    "chunk_size_overflow": [req("POST http://allowed.test/rt-chunkov HTTP/1.1", "Host: allowed.test", "Transfer-Encoding: chunked",
        body="10000000000000000000000000001\r\nX\r\n0\r\n\r\nGET http://other.test/rt-bad-smug-chunkov HTTP/1.1\r\nHost: other.test\r\n\r\n")],
    "bare_lf_pipelined": [b"GET http://allowed.test/rt-lf-ok HTTP/1.1\nHost: allowed.test\n\nGET http://other.test/rt-bad-lf HTTP/1.1\nHost: other.test\n\n"],
    "keepalive_then_other": [req("GET http://allowed.test/rt-ka-ok HTTP/1.1", "Host: allowed.test"),
        req("GET http://other.test/rt-bad-ka HTTP/1.1", "Host: other.test")],
    "websocket_other": [req("GET http://other.test/rt-bad-ws HTTP/1.1", "Host: other.test", "Connection: Upgrade", "Upgrade: websocket",
        "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==")],
    "websocket_allowed_then_other": [req("GET http://allowed.test/rt-ws-ok HTTP/1.1", "Host: allowed.test", "Connection: Upgrade", "Upgrade: websocket",
        "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="),
        req("GET http://other.test/rt-bad-ws2 HTTP/1.1", "Host: other.test", "Connection: close")],
    # inside a CONNECT tunnel to allowed.test:80
    "tunnel_pipelined_control": [req("CONNECT allowed.test:80 HTTP/1.1", "Host: allowed.test:80") +
        req("GET /rt-tunnel-ok HTTP/1.1", "Host: allowed.test", "Connection: close")],
    "tunnel_pipelined_other": [req("CONNECT allowed.test:80 HTTP/1.1", "Host: allowed.test:80") +
        req("GET /rt-bad-tunnel HTTP/1.1", "Host: other.test")],
    "tunnel_second_other": [req("CONNECT allowed.test:80 HTTP/1.1", "Host: allowed.test:80"),
        req("GET /rt-tunnel2-ok HTTP/1.1", "Host: allowed.test"), req("GET /rt-bad-tunnel2 HTTP/1.1", "Host: other.test")],
    "tunnel_absolute_other": [req("CONNECT allowed.test:80 HTTP/1.1", "Host: allowed.test:80"),
        req("GET http://other.test/rt-bad-tunnelabs HTTP/1.1", "Host: allowed.test")],
    "tunnel_smuggle_clte": [req("CONNECT allowed.test:80 HTTP/1.1", "Host: allowed.test:80"),
        req("POST /rt-tclte HTTP/1.1", "Host: allowed.test", "Content-Length: 6", "Transfer-Encoding: chunked",
            body="0\r\n\r\nGET /rt-bad-smug-tclte HTTP/1.1\r\nHost: other.test\r\n\r\n")],
    "tunnel_h2_preface": [req("CONNECT allowed.test:80 HTTP/1.1", "Host: allowed.test:80"),
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"],
    "tunnel_http09": [req("CONNECT allowed.test:80 HTTP/1.1", "Host: allowed.test:80"), b"GET /rt-bad-09\r\n"],
    "tunnel_leading_blank": [req("CONNECT allowed.test:80 HTTP/1.1", "Host: allowed.test:80"),
        b"\r\n\x0bGET /rt-bad-vt HTTP/1.1\r\nHost: other.test\r\n\r\n"],
    # targets spelled to look like something else
    "connect_port_22": [req("CONNECT allowed.test:22 HTTP/1.1", "Host: allowed.test:22")],
    "connect_ipv6_zone": [req("CONNECT [fe80::1%25abx0]:80 HTTP/1.1", "Host: [fe80::1%25abx0]:80")],
    "connect_ipv6_zone_raw": [req("CONNECT [fe80::1%abx0]:80 HTTP/1.1", "Host: [fe80::1%abx0]:80")],
    "hex_ipv4": [req("GET http://0x7f.1/rt-bad-hex HTTP/1.1", "Host: 0x7f.1", "Connection: close")],
    "octal_ipv4": [req("GET http://0177.0.0.1/rt-bad-oct HTTP/1.1", "Host: 0177.0.0.1", "Connection: close")],
    "short_ipv4": [req("GET http://127.1/rt-bad-short HTTP/1.1", "Host: 127.1", "Connection: close")],
    "trailing_dot_control": [req("GET http://allowed.test./rt-dot-ok HTTP/1.1", "Host: allowed.test.", "Connection: close")],
    "upper_case_control": [req("GET http://ALLOWED.Test/rt-upper-ok HTTP/1.1", "Host: Allowed.TEST", "Connection: close")],
    "idn_homograph": [req("CONNECT \u0430llowed.test:443 HTTP/1.1", "Host: \u0430llowed.test:443")],
    "fullwidth_dot": [req("CONNECT allowed\uff0etest:80 HTTP/1.1", "Host: allowed\uff0etest:80")],
    "percent_host": [req("GET http://allowed%2etest/rt-bad-pct HTTP/1.1", "Host: allowed%2etest", "Connection: close")],
    "backslash_host": [req("GET http://allowed.test\\\\@other.test/rt-bad-bs HTTP/1.1", "Host: other.test", "Connection: close")],
    "nul_host": [req("CONNECT allowed.test\x00.other.test:80 HTTP/1.1", "Host: allowed.test")],
}

SOCKS = {
    "socks_domain_control": (3, "allowed.test", 80),
    "socks_ipv4_private": (1, "10.0.0.1", 80),
    "socks_ipv4_metadata": (1, "169.254.169.254", 80),
    "socks_ipv4_host": (1, "198.51.100.1", 80),
    "socks_ipv6_loopback": (4, "::1", 80),
    "socks_ipv6_mapped_private": (4, "::ffff:10.0.0.1", 80),
    "socks_ipv6_mapped_host": (4, "::ffff:198.51.100.1", 80),
    "socks_ipv6_compat_private": (4, "::10.0.0.1", 80),
    "socks_ipv6_nat64_metadata": (4, "64:ff9b::a9fe:a9fe", 80),
    "socks_ipv6_6to4_private": (4, "2002:a00:1::1", 80),
    "socks_ipv6_teredo_private": (4, "2001:0:a00:1::1", 80),
    "socks_domain_decimal": (3, "167772161", 80),
    "socks_domain_nul": (3, "allowed.test\x00other.test", 80),
    "socks_domain_ipv6_literal": (3, "[::ffff:10.0.0.1]", 80),
}

def drain(s, until=2.0):
    data = b""
    s.settimeout(until)
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            data += c
    except (socket.timeout, OSError):
        pass
    return data

def show(data):
    for line in data.decode("latin-1").replace("\r\n", "\n").split("\n"):
        if line.startswith("HTTP/"):
            print("status " + line.split(" ")[1] if " " in line else "status ?")
        elif line.lower().startswith("x-agentbox-deny:"):
            print("deny " + line.split(":", 1)[1].strip())
        elif line.startswith("upstream "):
            print("body " + line.strip())

def http_case(parts):
    s = socket.create_connection(PROXY, timeout=10)
    data = b""
    for i, p in enumerate(parts):
        if i:
            data += drain(s, 1.0)
        try:
            s.sendall(p)
        except OSError as e:
            print("send error " + type(e).__name__)
            break
    data += drain(s, 3.0)
    s.close()
    show(data)

def socks_case(atyp, host, port):
    s = socket.create_connection(PROXY, timeout=10)
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00":
        print("socks no-auth refused")
        return
    if atyp == 1:
        a = socket.inet_pton(socket.AF_INET, host)
    elif atyp == 4:
        a = socket.inet_pton(socket.AF_INET6, host)
    else:
        h = host.encode("latin-1")
        a = bytes([len(h)]) + h
    s.sendall(b"\x05\x01\x00" + bytes([atyp]) + a + struct.pack(">H", port))
    rep = drain(s, 3.0) if False else s.recv(4)
    if len(rep) < 2:
        print("socks closed")
        return
    print("socks reply %d" % rep[1])
    if rep[1] == 0:
        n = {1: 4, 4: 16}.get(rep[3], 0)
        s.recv(n + 2)
        s.sendall(req("GET /rt-socks-ok HTTP/1.1", "Host: allowed.test", "Connection: close"))
        show(drain(s, 3.0))

for name in sys.argv[1:]:
    print("== " + name)
    sys.stdout.flush()
    try:
        if name in C:
            http_case(C[name])
        else:
            socks_case(*SOCKS[name])
    except Exception as e:
        print("error " + type(e).__name__ + " " + str(e))
    sys.stdout.flush()
print("== end")
`

var rtOnce struct {
	sync.Once
	path string
	err  error
}

func rtArgv(t *testing.T, cases ...string) []string {
	t.Helper()
	rtOnce.Do(func() {
		rtOnce.path = filepath.Join(workDir, "redteam.py")
		rtOnce.err = os.WriteFile(rtOnce.path, []byte(rtPy), 0o644)
	})
	if rtOnce.err != nil {
		t.Fatal(rtOnce.err)
	}
	return append([]string{"/usr/bin/python3", rtOnce.path}, cases...)
}

// rtSections splits rtPy's output by case.
func rtSections(out string) map[string][]string {
	m := map[string][]string{}
	cur := ""
	for _, l := range lines(out) {
		if name, ok := strings.CutPrefix(l, "== "); ok {
			cur = name
			m[cur] = []string{}
			continue
		}
		m[cur] = append(m[cur], l)
	}
	return m
}

// TestNetRedteamRaw: raw requests a client library would never send, each
// trying to reach other.test (never allowed), an internal address, or
// allowed.test through a smuggled or misread request, beside controls
// that reach allowed.test. None of the attacks may reach other.test or
// an internal address, or be allowed by the proxy; every control must
// reach the upstream.
func TestNetRedteamRaw(t *testing.T) {
	inNetns(t)
	t.Parallel()
	// The IP literals are allowed too, so that only the address guard
	// stands between them and the internal addresses they embed.
	pol := netPolicy{allow: []string{"allowed.test", "::ffff:10.0.0.1", "::ffff:198.51.100.1", "::10.0.0.1",
		"64:ff9b::a9fe:a9fe", "2002:a00:1::1", "2001:0:a00:1::1", "10.0.0.1", "169.254.169.254", hostAddr, "::1"}}
	var names []string
	for _, l := range strings.Split(rtPy, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, `"`) && (strings.Contains(l, `": [`) || strings.Contains(l, `": (`)) {
			names = append(names, l[1:strings.Index(l[1:], `"`)+1])
		}
	}
	if len(names) < 40 {
		t.Fatalf("found only %d cases in rtPy", len(names))
	}
	o := runSandboxed(t, pol, rtArgv(t, names...))
	sec := rtSections(o.res.Stdout)
	if _, ok := sec["end"]; !ok {
		t.Fatalf("the probe did not finish\n%s", o.dump())
	}
	controls := map[string]string{
		"userinfo_control":             "path=/rt-userinfo-ok",
		"bare_lf_pipelined":            "path=/rt-lf-ok",
		"keepalive_then_other":         "path=/rt-ka-ok",
		"tunnel_pipelined_control":     "path=/rt-tunnel-ok",
		"tunnel_second_other":          "path=/rt-tunnel2-ok",
		"trailing_dot_control":         "path=/rt-dot-ok",
		"upper_case_control":           "path=/rt-upper-ok",
		"socks_domain_control":         "path=/rt-socks-ok",
		"websocket_allowed_then_other": "path=/rt-ws-ok",
	}
	for _, name := range names {
		got := sec[name]
		t.Logf("%s: %q", name, got)
		text := strings.Join(got, "\n")
		if want, ok := controls[name]; ok && !strings.Contains(text, want) {
			t.Errorf("control %s: the allowed request did not reach the upstream: %q", name, got)
		}
		if strings.Contains(text, "host=other.test") || strings.Contains(text, "rt-bad") {
			t.Errorf("ESCAPE: %s reached an upstream it must not: %q", name, got)
		}
		if strings.HasPrefix(name, "socks_") && name != "socks_domain_control" && slicesContainsPrefix(got, "socks reply 0") {
			t.Errorf("ESCAPE: %s: the proxy opened a SOCKS5 connection: %q", name, got)
		}
	}
	for _, d := range o.decisions {
		if d.Allowed && d.Host != "allowed.test" {
			t.Errorf("ESCAPE: the proxy allowed %s %s (rule %s, address %v)", d.Proto, d.Target(), d.Rule, d.Addr)
		}
	}
	ev := upstreamEvents(t, "path=/rt-")
	for _, e := range ev {
		if strings.Contains(e, "rt-bad") || strings.Contains(e, "host=other.test") || !strings.Contains(e, allowedAddr) {
			t.Errorf("ESCAPE: the upstream saw %q", e)
		}
	}
	for _, p := range []string{"/rt-userinfo-ok", "/rt-tunnel-ok", "/rt-socks-ok"} {
		if !strings.Contains(strings.Join(ev, "\n"), "path="+p) {
			t.Errorf("control: the upstream never saw %s: %q", p, ev)
		}
	}
	expectUnreached(t, otherAddr+":80", otherAddr+":443", privateAddr+":80", metadataAddr+":80", hostAddr+":80", "127.0.0.1:80")
}

func slicesContainsPrefix(ss []string, prefix string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
