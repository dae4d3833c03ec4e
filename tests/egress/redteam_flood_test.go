//go:build linux

package egress_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// floodPy opens connections to the proxy from several processes and
// trickles an unfinished request line into each, a byte every second
// (slowloris), for up to 40 s. Each process prints how many connections
// it opened and how many the proxy had closed after how long; the parent
// then sends one ordinary request.
const floodPy = `import os, socket, sys, time

PROXY = ("127.0.0.1", 3128)
PROCS, PER = int(sys.argv[1]), int(sys.argv[2])

def child():
    socks = []
    for _ in range(PER):
        try:
            s = socket.create_connection(PROXY, timeout=5)
            s.sendall(b"GET http://allowed.test/rt-slow HTTP/1.1\r\nX-Slow: ")
            s.setblocking(False)
            socks.append(s)
        except OSError:
            break
    opened = len(socks)
    start = time.time()
    closed_at = []
    while socks and time.time() - start < 40:
        time.sleep(1)
        alive = []
        for s in socks:
            try:
                s.send(b"a")
                try:
                    if s.recv(4096) == b"":
                        raise OSError("eof")
                except BlockingIOError:
                    pass
                alive.append(s)
            except OSError:
                closed_at.append(time.time() - start)
                s.close()
        socks = alive
    print("child opened=%d closed=%d open_after=%d last_close=%.1f" % (opened, len(closed_at), len(socks), max(closed_at or [0])))
    sys.stdout.flush()
    os._exit(0)

pids = []
for _ in range(PROCS):
    pid = os.fork()
    if pid == 0:
        child()
    pids.append(pid)
for p in pids:
    os.waitpid(p, 0)
s = socket.create_connection(PROXY, timeout=10)
s.sendall(b"GET http://allowed.test/rt-after-flood HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n")
data = b""
while True:
    c = s.recv(4096)
    if not c:
        break
    data += c
print("control " + data.decode("latin-1").split("\r\n")[0])
for l in data.decode("latin-1").split("\n"):
    if l.startswith("upstream "):
        print("control " + l.strip())
`

// TestNetRedteamSlowlorisFlood: a sandbox that opens thousands of
// connections to the proxy and keeps each one's request unfinished must
// not keep them (the handshake timeout is absolute, 10 s by default),
// must not leave goroutines behind in the agentbox process, and must not
// keep the proxy from serving the next request.
func TestNetRedteamSlowlorisFlood(t *testing.T) {
	inNetns(t)
	p := filepath.Join(workDir, "redteam_flood.py")
	if err := os.WriteFile(p, []byte(floodPy), 0o644); err != nil {
		t.Fatal(err)
	}
	m, r, decisions := newManager(t, netPolicy{allow: []string{"allowed.test"}})
	// A first command warms everything the Manager keeps.
	execIn(t, m, r, decisions, []string{"/bin/true"})
	time.Sleep(time.Second)
	before := runtime.NumGoroutine()
	o := execIn(t, m, r, decisions, []string{"/usr/bin/python3", p, "3", "900"})
	t.Logf("%s", o.res.Stdout)
	opened := 0
	for _, l := range lines(o.res.Stdout) {
		if !strings.HasPrefix(l, "child ") {
			continue
		}
		f := map[string]string{}
		for _, kv := range strings.Fields(l)[1:] {
			k, v, _ := strings.Cut(kv, "=")
			f[k] = v
		}
		n, _ := strconv.Atoi(f["opened"])
		opened += n
		if f["open_after"] != "0" {
			t.Errorf("ESCAPE (limits): %s trickling connections were still open after 40 s: %s", f["open_after"], l)
		}
		if last, _ := strconv.ParseFloat(f["last_close"], 64); last > 25 {
			t.Errorf("a trickling connection lasted %.1f s, past the handshake timeout", last)
		}
	}
	if opened < 1000 {
		t.Errorf("the flood opened only %d connections: the test proves little\n%s", opened, o.dump())
	}
	if !strings.Contains(o.res.Stdout, "control HTTP/1.1 200") || !strings.Contains(o.res.Stdout, "path=/rt-after-flood") {
		t.Errorf("control: the request after the flood was not served\n%s", o.dump())
	}
	for _, d := range o.decisions {
		if d.Allowed && d.Host != "allowed.test" {
			t.Errorf("unexpected decision %+v", d)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for runtime.NumGoroutine() > before+20 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before+20 {
		t.Errorf("ESCAPE (limits): %d goroutines before the flood, %d after it ended", before, after)
	}
}
