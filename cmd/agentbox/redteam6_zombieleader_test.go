//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// rt6LeaderScript forks four processes; in each, a second thread waits
// until the main thread has left (pthread_exit: the thread-group leader
// becomes a zombie while the process lives on), then touches 200 MiB of
// private memory, each under RLIMIT_DATA. The kernel shows no memory in
// the status of a zombie leader (its mm is gone), and /proc lists a process
// only by its leader: the monitor sees four processes using nothing.
// With leave=False the leaders stay: the control, which the monitor must
// kill.
const rt6LeaderScript = `
import os, sys, time, threading, ctypes
leave = sys.argv[0].endswith("leave.py")
N = 4
r, w = os.pipe()
for i in range(N):
    if os.fork() == 0:
        def hold():
            while leave and "State:\tZ" not in open("/proc/self/status").read():
                time.sleep(0.01)
            b = bytearray(200 << 20)
            for off in range(0, len(b), 4096):
                b[off] = 1
            os.write(w, b"x")
            time.sleep(6)
            os._exit(0)
        threading.Thread(target=hold).start()
        if leave:
            ctypes.CDLL(None).pthread_exit(None)
        time.sleep(10)
        os._exit(0)
got = 0
while got < N:
    got += len(os.read(r, N))
print("survived: 800 MiB in 4 processes", flush=True)
time.sleep(3)
print("alive", flush=True)
`

// TestRedteam6MonitorMissesZombieLeader: with max_memory_mb 256 enforced by
// the monitor, processes whose main thread has exited hold 800 MiB between
// them and `agentbox run` exits 0. The control, the same processes with
// their main threads in place, is killed for the memory limit.
//
// Fixed: the monitor reads another thread's status when the first thread has exited.
func TestRedteam6MonitorMissesZombieLeader(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "leader.yaml", "name: rt6-leader\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	for _, tc := range []struct {
		name   string
		attack bool
	}{
		{"stay", false},
		{"leave", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := m.file(t, tc.name+".py", rt6LeaderScript)
			code, out, errOut := m.run(t, manifest, script, 20*time.Second)
			monitored(t, code, errOut)
			if code != 137 || strings.Contains(out, "alive") || !strings.Contains(errOut, "memory limit exceeded") {
				what := "control: the monitor did not kill the tree"
				if tc.attack {
					what = "ESCAPE: memory held behind exited main threads went past max_memory_mb 256"
				}
				t.Errorf("%s: exit %d, want 137 for the memory limit\nstdout %q\nstderr %q", what, code, out, errOut)
			}
		})
	}
}
