//go:build linux

package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rt28TCPBuffersScript opens loopback TCP connections in the sandbox's own
// network namespace. Mode "hold": for each, 48 MiB is sent and read back
// (so the kernel's receive- and send-buffer autotuning grows both sockets'
// buffers, past net.core.rmem_max, up to net.ipv4.tcp_rmem[2] and
// tcp_wmem[2]), then the sender writes without blocking until the kernel
// refuses more and the receiver never reads: the bytes stay in socket
// buffers, kernel memory of no process's count. It stops once the host's
// TCP memory (/proc/net/sockstat "TCP: mem", pages) grew TARGET MiB.
// Mode "transfer" is the legitimate control: 64 MiB sent and read through
// one connection.
const rt28TCPBuffersScript = `
import socket, sys, time
N, target, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def meminfo(k):
    for l in open("/proc/meminfo"):
        if l.startswith(k + ":"):
            return int(l.split()[1]) >> 10
def tcpmem():
    for l in open("/proc/net/sockstat"):
        if l.startswith("TCP:"):
            f = l.split()
            return int(f[f.index("mem") + 1]) * 4096 >> 20
avail0, mem0 = meminfo("MemAvailable"), tcpmem()
try:
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)
except OSError as e:
    print("refused: %s" % e, flush=True)
    sys.exit(3)
chunk = b"\x5a" * (1 << 20)
pairs = []
for i in range(N):
    c = socket.create_connection(ls.getsockname())
    s, _ = ls.accept()
    for k in range(48 if mode == "hold" else 64):
        c.sendall(chunk)
        got = 0
        while got < len(chunk):
            got += len(s.recv(1 << 20))
    if mode == "transfer":
        print("alive: 64 MiB through loopback TCP", flush=True)
        sys.exit(0)
    c.setblocking(False)
    while True:
        try:
            c.send(chunk)
        except BlockingIOError:
            break
    pairs.append((c, s))
    if tcpmem() - mem0 >= target:
        break
    time.sleep(0.01)  # the monitor samples all along
print("survived: %d connections, host TCP mem +%d MiB, host MemAvailable -%d MiB"
      % (len(pairs), tcpmem() - mem0, avail0 - meminfo("MemAvailable")), flush=True)
time.sleep(3)
print("alive, host TCP mem +%d MiB" % (tcpmem() - mem0), flush=True)
`

var rt28TCPHeld = regexp.MustCompile(`survived: \d+ connections, host TCP mem \+(-?\d+) MiB`)

// TestRedteam28MonitorMissesTCPBuffers: with max_memory_mb 64 enforced by
// run's monitor (no delegated memory cgroup), the agent holds 320 MiB (5x
// the limit) in the socket buffers of about 60 loopback TCP connections
// of its own network namespace (120 descriptors of its 1,024) for as long
// as it likes, and `agentbox run` exits 0 (hand runs: 236 MiB of the
// host's TCP memory, MemAvailable -185 MiB, from 60 connections).
//
// Why it matters: the README says kernel memory the counts do not show
// (socket buffers, pipes) "is bounded only by the rlimits", and for unix
// and UDP sockets setsockopt clamps a buffer to net.core.rmem_max/wmem_max
// (208 KiB), so that bound is about 200 KiB a descriptor. A TCP socket's
// buffers are grown by the kernel's autotuning, which ignores rmem_max, up
// to net.ipv4.tcp_rmem[2] and tcp_wmem[2] (32 MiB and 4 MiB here, 6 MiB and
// 4 MiB by default): 20-150x more a descriptor, some 4 GiB from the 1,024
// descriptors of one process. What stops it is the host-wide
// net.ipv4.tcp_mem (2.2 GiB here), shared with every program of the host:
// a sandbox that fills it puts the host's TCP under memory pressure
// (new buffers refused, connections of other programs stalled) — invariant
// 5, "a memory bomb ends the sandbox, not the machine", on the monitor path.
// The cgroup v2 path charges socket memory to the cgroup, and the README's
// cgroup v1 paragraph sets a TCP limit for this very reason
// (TestRedteam16TCPBuffersPastMemoryCgroup); the monitor path has nothing.
//
// Severity: medium (same class and size as
// TestRedteam27MonitorMissesVmsplicedHugePages: per-descriptor
// amplification past the documented rlimit bound; needs no privilege, only
// loopback in the sandbox's own network namespace, which every run has).
//
// A fix would need, where run's monitor counts the memory: to set the
// sandbox network namespace's own net.ipv4.tcp_rmem and tcp_wmem (per
// namespace since Linux 4.15) to maxima no larger than rmem_max/wmem_max
// when agentbox makes the namespace, and/or to have the monitor count the
// socket memory of the sandbox's namespace (NETLINK_SOCK_DIAG with
// INET_DIAG_SKMEMINFO, or /proc/net/sockstat of that namespace for
// sockets it alone owns). With the host's network (network: allowed) the
// sysctls are the host's: the monitor would have to count it.
//
// Controls: 64 MiB sent through one loopback connection and read runs
// (transfer), everyday work (rt26EverydayScript) runs.
//
// Fixed: run's monitor adds the bytes queued in the TCP sockets of the
// sandbox's own network namespace (tx_queue and rx_queue of the init's
// /proc/1/net/tcp and tcp6: supervise's socketBytes) to its sum, so the
// held buffers count toward max_memory_mb and the run is killed. Capping
// the namespace's tcp_rmem/tcp_wmem was tried and rejected: at 208 KiB the
// transfer control (1 MiB written before any is read) deadlocks, and a cap
// that lets it through (tcp_wmem 2 MiB) still lets 159 connections hold
// 320 MiB. With network: allowed the sockets are the host's and uncounted
// (README).
func TestRedteam28MonitorMissesTCPBuffers(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt28-tcpbuf\nlimits: {max_memory_mb: 64, max_duration: 60s}\n")
	script := m.file(t, "tcpbuf.py", rt28TCPBuffersScript)
	t.Run("control_transfer", func(t *testing.T) {
		code, out, errOut := m.runArgs(t, manifest, 60*time.Second, script, "1", "0", "transfer")
		monitored(t, code, errOut)
		if code != 0 || !strings.Contains(out, "alive") {
			t.Errorf("control: a loopback transfer failed: exit %d\nstdout %q\nstderr %q", code, out, errOut)
		}
	})
	t.Run("attack_tcp_buffers_320", func(t *testing.T) {
		code, out, errOut := m.runArgs(t, manifest, 90*time.Second, script, "200", "320", "hold")
		monitored(t, code, errOut)
		t.Logf("exit %d stdout %q", code, out)
		killed := code == 137 && strings.Contains(errOut, "memory limit exceeded") && !strings.Contains(out, "alive")
		refused := code == 3 && strings.Contains(out, "refused:")
		if killed || refused {
			return
		}
		mm := rt28TCPHeld.FindStringSubmatch(out)
		if mm == nil || code != 0 {
			t.Fatalf("want killed, refused or run to its end: exit %d\nstdout %q\nstderr %q", code, out, errOut)
		}
		// Other programs' TCP traffic moves the host-wide count too: only
		// a growth of four times the limit is taken for the attack's.
		if held, _ := strconv.Atoi(mm[1]); held >= 4*64 {
			t.Errorf("ESCAPE: %d MiB held in TCP socket buffers past max_memory_mb 64, exit %d\nstdout %q\nstderr %q", held, code, out, errOut)
		}
	})
	t.Run("control_everyday", func(t *testing.T) { m.everydayControl(t, manifest) })
}
