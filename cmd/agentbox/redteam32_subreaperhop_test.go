//go:build linux

package main

import (
	"testing"
)

// rt32SubreaperHopScript: like rt30HopScript, but the parent is a child
// subreaper (PR_SET_CHILD_SUBREAPER) that maps, untouched, a private
// region of ARGV[2] MiB before it forks the chains; each chain writes its
// copy of that region (its memory) and then hops. Every hop is a fork
// child reparented to the subreaper, whose statm size is the same as the
// chain's, so each exact read of a hop goes the sameSize/kcmp path.
const rt32SubreaperHopScript = `
import os, sys, time, mmap, ctypes
chains, mib, pad, secs, hop = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "hop"
libc = ctypes.CDLL(None, use_errno=True)
sub = libc.prctl(36, 1, 0, 0, 0)
pads = []
for i in range(pad):
    p = os.fork()
    if p == 0:
        os.execv("/bin/sleep", ["sleep", "60"])
    pads.append(p)
time.sleep(0.5)
size = mib << 20
region = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ | mmap.PROT_WRITE)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
slack = [libc.mmap(None, 4096 * 4096, 0, 0x22, -1, 0)]
r, w = os.pipe()
me = os.getpid()
def vsize(p):
    with open("/proc/%d/statm" % p) as f:
        return f.read().split()[0]
def adjust():
    a, b = int(vsize(os.getpid())), int(vsize(me))
    if a > b:
        libc.munmap(slack[0], (a - b) * 4096)
        slack[0] += (a - b) * 4096
    elif a < b:
        libc.mmap(None, (b - a) * 4096, 0, 0x22, -1, 0)
for c in range(chains):
    if os.fork() == 0:
        os.close(r)
        for off in range(0, size, 4096):
            region[off] = 7
        for i in range(4):
            adjust()
        end = time.time() + secs
        hops = 0
        while time.time() < end:
            if hop:
                try:
                    p = os.fork()
                except BlockingIOError:
                    continue
                if p != 0:
                    os._exit(0)
                hops += 1
                adjust()
                adjust()
            else:
                time.sleep(0.001)
        a, b = vsize(os.getpid()), vsize(me); same = "same" if a == b else a + "!=" + b
        held = sum(region[off] for off in range(0, size, 4096)) * 4096 // 7
        os.write(w, ("%d %d %s\n" % (held, hops, same)).encode())
        os._exit(0)
os.close(w)
data = b""
while True:
    b = os.read(r, 4096)
    if not b:
        break
    data += b
lines = data.decode().split()
held = sum(int(x) for x in lines[0::3])
print("alive" if len(lines) == 3 * chains else "a chain died", held >> 20, "MiB", "subreaper", sub, "hops", lines[1::3], lines[2::3], flush=True)
for p in pads:
    os.kill(p, 9)
`

// TestRedteam32MonitorMissesSubreaperHop (held; kept as new coverage):
// the rt30 fork-hop attack (six chains of 75 MiB under max_memory_mb
// 256, beside 500 idle processes), with the chains' reaper a child
// subreaper (PR_SET_CHILD_SUBREAPER) whose statm size the chains keep
// equal to their own (an untouched region mapped before the forks, and
// PROT_NONE slack mapped or unmapped after each hop), so every exact read
// of a hop, reparented to the subreaper, fails the sameSize pre-filter
// and goes the slow kcmp path (a walk of the host's /proc for each new
// process). The aim: hops outrun each read. It held: a 75 MiB Python
// process hops about 40 times a second, slower than a read, and the
// attack is killed within 2 s; the within-limit hopping control lives
// and the over-limit staying control is killed.
func TestRedteam32MonitorMissesSubreaperHop(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt32-hop\nlimits: {max_memory_mb: 256, max_duration: 40s}\n")
	path := m.file(t, "hop.py", rt32SubreaperHopScript)
	rt30HopCases(t, m, manifest, path)
}
