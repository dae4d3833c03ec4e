//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// rt33StoppedScript: ARGV[1] processes each hold ARGV[2] MiB of private
// anonymous memory in a second thread, after their thread-group leader
// has exited alone (syscall exit, not exit_group) and the thread has
// stopped the whole group with SIGSTOP: a zombie leader whose own
// status and smaps_rollup show no memory, in a stopped group. The parent
// sends SIGCONT after ARGV[3] seconds; each holder checks every page and
// the parent prints "alive" when all of them ended well.
const rt33StoppedScript = `
import os, sys, time, signal, threading, ctypes
procs, mib, extra, secs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
kids = []
for i in range(procs):
    p = os.fork()
    if p == 0:
        def hold():
            try:
                buf = bytearray(mib << 20)
                for o in range(0, len(buf), 4096):
                    buf[o] = 7
            except MemoryError:
                os._exit(4)
            os.kill(os.getpid(), signal.SIGSTOP)
            time.sleep(secs)
            ok = all(buf[o] == 7 for o in range(0, len(buf), 4096))
            os._exit(0 if ok else 3)
        t = threading.Thread(target=hold)
        t.start()
        time.sleep(0.2)
        ctypes.CDLL(None).syscall(60, 0)
    kids.append(p)
time.sleep(1.5)
own = bytearray(extra << 20)
for o in range(0, len(own), 4096):
    own[o] = 7
time.sleep(secs)
for p in kids:
    os.kill(p, signal.SIGCONT)
bad = 0
for p in kids:
    _, st = os.waitpid(p, 0)
    bad += st != 0
print("alive" if bad == 0 else "a holder died", flush=True)
`

// TestRedteam33MonitorStoppedLeaderlessHolders: memory held by processes
// in a state other than running: each holder's thread-group leader has
// exited alone (a zombie leader, whose own /proc files show no memory)
// and the remaining thread has stopped the group (SIGSTOP), so the
// monitor must read the memory through /proc/PID/task/TID of a stopped
// thread, and its kill must reach a stopped group. Three such holders
// of 35 MiB (105 MiB, within max_memory_mb 128) beside a running parent
// that then takes 60 MiB must be killed; one holder of 35 MiB beside the
// same 60 MiB lives (control). Held (passing): new coverage of stopped, leaderless holders
// (redteam6's zombie-leader case runs; this one is stopped).
func TestRedteam33MonitorStoppedLeaderlessHolders(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt33-stopped\nlimits: {max_memory_mb: 128, max_duration: 40s}\n")
	path := m.file(t, "stopped.py", rt33StoppedScript)
	for _, tc := range []struct {
		name, procs, mib string
		wantAlive        bool
	}{
		{"control_within_limit", "1", "35", true},
		{"attack_over_limit", "3", "35", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 60*time.Second, path, tc.procs, tc.mib, "60", "5")
			monitored(t, code, errOut)
			alive := code == 0 && strings.Contains(out, "alive")
			switch {
			case tc.wantAlive && !alive:
				t.Errorf("FALSE KILL: %s x %s MiB (within the limit) failed: exit %d\nstdout %q\nstderr %q", tc.procs, tc.mib, code, out, errOut)
			case !tc.wantAlive && alive:
				t.Errorf("ESCAPE: %s stopped, leaderless processes held %s MiB each beside 60 MiB running for 5 s under max_memory_mb 128\nstdout %q\nstderr %q", tc.procs, tc.mib, out, errOut)
			}
			t.Logf("exit %d stdout %q stderr tail %q", code, out, rt29Tail(errOut, 300))
		})
	}
}
