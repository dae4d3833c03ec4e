//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// rt30SlowSmapsScript: when ARGV[3] is not 0, a child makes 30000 one-page
// mappings (never touched: no memory) and forks ARGV[3] idle copies of
// itself; then ARGV[1] processes each write ARGV[2] MiB of private
// anonymous memory and hold it ARGV[4] seconds. The parent prints "alive"
// when every holder ended by itself.
const rt30SlowSmapsScript = `
import ctypes, os, signal, sys, time
n, mib, vprocs, secs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
r, w = os.pipe()
if vprocs and os.fork() == 0:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    base = libc.mmap(None, 60000 * 4096, 1, 0x22, -1, 0)
    for i in range(0, 60000, 2):
        libc.mprotect(base + i * 4096, 4096, 0)
    for i in range(vprocs - 1):
        if os.fork() == 0:
            break
    os.close(r)
    os.write(w, b"x")
    signal.pause()
    os._exit(0)
got = 0
while got < vprocs:
    got += len(os.read(r, 64))
pids = []
for i in range(n):
    p = os.fork()
    if p == 0:
        buf = bytearray(mib << 20)
        for off in range(0, len(buf), 4096):
            buf[off] = 7
        time.sleep(secs)
        os._exit(0 if buf[0] == 7 else 1)
    pids.append(p)
t0 = time.time()
ok = all(os.waitpid(p, 0)[1] == 0 for p in pids)
print("alive" if ok else "a holder died", round(time.time() - t0, 1), "s", flush=True)
os._exit(0)
`

// TestRedteam30MonitorSlowedBySmapsOfManyMappings: past the limit the
// monitor recounts by reading every process's smaps_rollup and smaps, and
// waits four times as long as a count took before the next
// (memory.go: a fifth of a CPU). smaps grows with the number of mappings,
// which cost no memory: eighty idle processes sharing 30000 untouched
// one-page mappings each make every exact count take seconds, so 450 MiB
// of anonymous memory (three processes) is held under max_memory_mb 256
// for 10 s and they end by themselves; without the mappings the same
// holders are killed within about a second (control). The README's
// "less often for a tree so large" suggests many processes; here the
// tree is 84 processes holding no memory beyond the attack's (twenty
// such processes were not enough: killed after about 5 s).
//
// Severity: low/medium (the limit is late by as long as the attacker
// makes a count take: up to about max_map_count (65530) mappings per
// process times RLIMIT_NPROC processes).
//
// Fix: bound the time a count may take (read smaps only of processes
// whose share could matter, stop once the sum is past the limit, or
// kill when a count outlasts a bound while the cheap sum is past the limit).
//
// Fixed: the exact count reads smaps only of processes whose smaps_rollup
// shows shared memory (Pss_Shmem), the only memory it can take away, and
// for at most smapsBudget per count (the rest keep their shares: errs
// high); the wait between samples is bounded by maxSampleWait.
func TestRedteam30MonitorSlowedBySmapsOfManyMappings(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt30-smaps\nlimits: {max_memory_mb: 256, max_duration: 50s}\n")
	path := m.file(t, "smaps.py", rt30SlowSmapsScript)
	for _, tc := range []struct {
		name, vprocs string
		wantAlive    bool
	}{
		{"control_over_limit_no_mappings", "0", false},
		{"attack_over_limit_many_mappings", "80", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 70*time.Second, path, "3", "150", tc.vprocs, "10")
			monitored(t, code, errOut)
			alive := code == 0 && strings.Contains(out, "alive")
			if !tc.wantAlive && !alive && code != 137 {
				t.Fatalf("the holders failed on their own: exit %d\nstdout %q\nstderr %q", code, out, errOut)
			}
			if !tc.wantAlive && alive {
				t.Errorf("ESCAPE: 3 processes held 150 MiB each for 10 s under max_memory_mb 256 (%s idle processes of 30000 mappings)\nstdout %q\nstderr %q", tc.vprocs, out, errOut)
			}
			t.Logf("exit %d stdout %q stderr tail %q", code, out, rt29Tail(errOut, 300))
		})
	}
}
