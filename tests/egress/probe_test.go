//go:build linux

package egress_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// probePy is a small client for what curl cannot do: raw TCP and UDP
// connections that ignore every proxy setting, a CONNECT or SOCKS5 tunnel
// whose TLS ClientHello names another host than the tunnel's target,
// pipelined requests on one proxy connection, and SOCKS5 BIND and UDP
// ASSOCIATE. It prints one line per step.
const probePy = `import errno, socket, ssl, struct, sys

PROXY = ("127.0.0.1", 3128)

def err_name(e):
    if getattr(e, "errno", None):
        return errno.errorcode.get(e.errno, str(e.errno))
    return type(e).__name__

def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError("closed after %d bytes" % len(b))
        b += c
    return b

def socks_request(s, cmd, host, port):
    s.sendall(b"\x05\x01\x00")
    if recv_exact(s, 2) != b"\x05\x00":
        print("socks no-auth refused")
        return None
    h = host.encode()
    s.sendall(b"\x05" + bytes([cmd]) + b"\x00\x03" + bytes([len(h)]) + h + struct.pack(">H", port))
    rep = recv_exact(s, 4)
    atyp = rep[3]
    n = {1: 4, 4: 16}.get(atyp)
    if n is None:
        n = recv_exact(s, 1)[0]
    recv_exact(s, n + 2)
    print("socks reply %d" % rep[1])
    return rep[1]

def tunnel(proto, target, port):
    s = socket.create_connection(PROXY, timeout=10)
    if proto == "connect":
        s.sendall(("CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (target, port, target, port)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            c = s.recv(1)
            if not c:
                break
            head += c
        lines = head.decode("latin-1").split("\r\n")
        status = lines[0].split(" ")[1] if " " in lines[0] else "?"
        deny = [l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("x-agentbox-deny:")]
        print("proxy %s deny=%s" % (status, ",".join(deny)))
        return s if status == "200" else None
    return s if socks_request(s, 1, target, port) == 0 else None

def front(proto, target, port, sni, cafile, path):
    s = tunnel(proto, target, int(port))
    if s is None:
        return
    ctx = ssl.create_default_context(cafile=cafile)
    try:
        t = ctx.wrap_socket(s, server_hostname=sni)
    except (ssl.SSLError, OSError, EOFError) as e:
        print("tls error %s: %s" % (type(e).__name__, e))
        return
    print("tls ok " + t.version())
    t.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path, sni)).encode())
    data = b""
    while True:
        c = t.recv(4096)
        if not c:
            break
        data += c
    for line in data.decode("latin-1").split("\r\n"):
        if line.startswith("HTTP/") or line.startswith("upstream "):
            print("response " + line.strip())

def direct(kind, host, port):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    typ = socket.SOCK_STREAM if kind == "tcp" else socket.SOCK_DGRAM
    s = socket.socket(fam, typ)
    s.settimeout(5)
    try:
        if kind == "tcp":
            s.connect((host, int(port)))
            print("connected")
        else:
            s.sendto(b"probe", (host, int(port)))
            print("sent")
    except OSError as e:
        print("error " + err_name(e))

def pipeline(*targets):
    # Several absolute-URI requests on one proxy connection, sent at once.
    s = socket.create_connection(PROXY, timeout=10)
    req = ""
    for t in targets:
        host = t.split("/")[2]
        req += "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (t, host)
    s.sendall(req.encode())
    data = b""
    try:
        while True:
            c = s.recv(4096)
            if not c:
                break
            data += c
    except socket.timeout:
        pass
    for line in data.decode("latin-1").split("\r\n"):
        for l in line.split("\n"):
            if l.startswith("HTTP/") or l.startswith("upstream ") or l.lower().startswith("x-agentbox-deny:"):
                print("response " + l.strip())

def socks_cmd(cmd):
    s = socket.create_connection(PROXY, timeout=10)
    socks_request(s, int(cmd), "allowed.test", 443)

def main():
    a = sys.argv[1:]
    if a[0] == "front":
        front(*a[1:])
    elif a[0] in ("tcp", "udp"):
        direct(*a)
    elif a[0] == "pipeline":
        pipeline(*a[1:])
    elif a[0] == "socks-cmd":
        socks_cmd(a[1])
    else:
        sys.exit("unknown probe " + a[0])

main()
`

var probeOnce struct {
	sync.Once
	path string
	err  error
}

// probeArgv returns a sandboxed python3 running probePy with args.
func probeArgv(t *testing.T, args ...string) []string {
	t.Helper()
	probeOnce.Do(func() {
		probeOnce.path = filepath.Join(workDir, "probe.py")
		probeOnce.err = os.WriteFile(probeOnce.path, []byte(probePy), 0o644)
	})
	if probeOnce.err != nil {
		t.Fatal(probeOnce.err)
	}
	return append([]string{"/usr/bin/python3", probeOnce.path}, args...)
}

// lines returns the non-empty lines of s.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
