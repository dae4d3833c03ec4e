//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// rt29NoDumpScript forks ARGV[2] processes; each makes itself non-dumpable
// (when ARGV[1] is "nodump"), writes 150 MiB of anonymous memory and holds
// it 4 s.
const rt29NoDumpScript = `
import ctypes, os, sys, time
def child():
    if sys.argv[1] == "nodump":
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
    buf = bytearray(150 << 20)
    for off in range(0, len(buf), 4096):
        buf[off] = 1
    time.sleep(4)
    os._exit(0)
pids = []
for i in range(int(sys.argv[2])):
    p = os.fork()
    if p == 0:
        child()
    pids.append(p)
ok = all(os.waitpid(p, 0)[1] == 0 for p in pids)
print("alive" if ok else "a child died", flush=True)
`

// TestRedteam29MonitorNonDumpable: a process that makes itself
// non-dumpable (PR_SET_DUMPABLE 0) could make its smaps_rollup unreadable
// to the monitor, whose exact recount would then count it as nothing.
// Held: the supervisor owns the sandbox's user namespace (or is root) and
// may still read it; 3 x 150 MiB under max_memory_mb 256 is killed either
// way. New coverage: the exact recount of non-dumpable processes.
func TestRedteam29MonitorNonDumpable(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt29-nodump\nlimits: {max_memory_mb: 256, max_duration: 30s}\n")
	path := m.file(t, "nodump.py", rt29NoDumpScript)
	for _, tc := range []struct {
		name, mode, procs string
		wantAlive         bool
	}{
		{"control_within_limit_nodump", "nodump", "1", true},
		{"control_over_limit_dump", "dump", "3", false},
		{"attack_over_limit_nodump", "nodump", "3", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 40*time.Second, path, tc.mode, tc.procs)
			monitored(t, code, errOut)
			t.Logf("exit %d stdout %q stderr %q", code, out, errOut)
			alive := code == 0 && strings.Contains(out, "alive")
			switch {
			case tc.wantAlive && !alive:
				t.Errorf("FALSE KILL: one non-dumpable 150 MiB process under max_memory_mb 256 failed")
			case !tc.wantAlive && alive:
				t.Errorf("ESCAPE (%s): %s x 150 MiB ran to its end under max_memory_mb 256", tc.mode, tc.procs)
			case !tc.wantAlive && !strings.Contains(errOut, "memory limit exceeded"):
				t.Errorf("the run did not end for the memory limit")
			}
		})
	}
}
