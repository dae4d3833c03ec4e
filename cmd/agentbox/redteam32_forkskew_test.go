//go:build linux

package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// rt32ForkSpawnerScript: one process holds ARGV[1] MiB of private
// anonymous memory (written) and, for ARGV[2] seconds, keeps forking
// children (at most ARGV[3] at once) that sleep ARGV[4] ms and exit
// without touching that memory, reaping them: a pre-fork server
// recycling its workers, or a program that forks helpers
// (multiprocessing's fork start method). What the tree holds is the
// parent's memory plus what each child writes (little). It prints
// "alive" and the number of forks at the end.
const rt32ForkSpawnerScript = `
import os, sys, time
mib, secs, most, ms = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]) / 1000
own = int(sys.argv[5])
buf = bytearray(mib << 20)
for off in range(0, len(buf), 4096):
    buf[off] = 7
def field(path, name):
    with open(path) as f:
        for line in f:
            if line.startswith(name):
                return int(line.split()[1]) >> 10
rd, wr = os.pipe()
end = time.time() + secs
kids = set()
forks = 0
if most == 0:
    time.sleep(secs)
while time.time() < end:
    while len(kids) < most:
        p = os.fork()
        if p == 0:
            mine = bytearray(own << 20)
            for off in range(0, len(mine), 4096):
                mine[off] = 7
            time.sleep(ms)
            if forks == 0:
                os.write(wr, b"%d" % field("/proc/self/smaps_rollup", "Private_Dirty:"))
            os._exit(0)
        kids.add(p)
        forks += 1
    p, _ = os.wait()
    kids.discard(p)
for p in kids:
    os.waitpid(p, 0)
os.close(wr)
child = os.read(rd, 100).decode() or "-"
print("alive", len(buf) >> 20, "MiB", "forks", forks, "parent RssAnon MiB", field("/proc/self/status", "RssAnon:"), "a child Private_Dirty MiB", child, flush=True)
`

// TestRedteam32MonitorFalseKillForkingServer: a false kill. A process
// holding 220 MiB (private, written) that keeps forking short-lived
// children which write nothing (a pre-fork server recycling workers,
// multiprocessing's fork start method) holds about 225 MiB (its own
// RssAnon 222 MiB, each child's Private_Dirty 0, plus the children's page
// tables), under max_memory_mb 256, yet the monitor kills it, counting
// 270-310 MiB. The exact count reads each process's proportional share
// (Pss) once, at a different moment: the parent, read first (lowest pid),
// when few children share its pages, gets a large share; children forked
// or exited later in the same count get shares computed over a different
// set of sharers, and the listing's sum of these reads counts the shared
// pages more than once (up to the parent's memory times 1 + 1/2 + ...).
// Both exact counts 5-15 ms apart see such a skew when forks are this
// frequent. Controls: the same process without forks lives; the same
// forking at 80 MiB lives; forking children that each write 30 MiB of
// their own beside 180 MiB (300 MiB) is killed.
//
// Flaky: fails most runs on an idle machine (root, 2 cores), never seen
// failing with 3-6 busy loops beside it, so it runs only with
// AGENTBOX_RT32_FLAKY=1 and is not kept as a failing test.
//
// Partly fixed: the exact count no longer sums, in a listing's sum, the
// shares of processes read in earlier rounds, and reads a first-walk
// parent again in the round that adds its children (supervise's
// walkTree). Measured (root, idle): the count of the first fix for the
// fork-hop escape (every listed process's last read) killed it in 2 of 4
// runs, the count before that in 0 of 4, this one in 0 of 5 with 8
// listings a count and 1 of 5 with 16 (the bound kept, for the fork-hop
// attack under load). The shares of children that come and go within
// a millisecond, read one after another, still mix.
//
// Severity: low (a false kill of a legitimate within-limit workload; no
// escape).
//
// Fix: a listing's sum must not mix proportional shares taken over
// different sets of sharers: e.g. count a page shared by a parent and its
// fork children once by reading the shares of one tree in one pass
// (stop the tree while reading, as the kill path can), or cap a count by
// the cheap sum of distinct memory (sum of Rss less what kcmp/KPF says is
// shared), or require the excess to persist over more than two counts.
func TestRedteam32MonitorFalseKillForkingServer(t *testing.T) {
	if os.Getenv("AGENTBOX_RT32_FLAKY") == "" {
		t.Skip("flaky on load (see the doc comment): set AGENTBOX_RT32_FLAKY=1")
	}
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt32-fork\nlimits: {max_memory_mb: 256, max_duration: 40s}\n")
	path := m.file(t, "fork.py", rt32ForkSpawnerScript)
	for _, tc := range []struct {
		name, mib, most, ms, own string
		wantAlive                bool
	}{
		{"control_small_forking", "80", "4", "20", "0", true},
		{"control_over_limit_forking", "180", "4", "200", "30", false},
		{"control_within_limit_no_forks", "210", "0", "20", "0", true},
		{"within_limit_forking", "220", "4", "1", "0", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 60*time.Second, path, tc.mib, "4", tc.most, tc.ms, tc.own)
			monitored(t, code, errOut)
			alive := code == 0 && strings.Contains(out, "alive")
			switch {
			case tc.wantAlive && !alive:
				t.Errorf("FALSE KILL: %s MiB forking (within the limit) failed: exit %d\nstdout %q\nstderr %q", tc.mib, code, out, errOut)
			case !tc.wantAlive && alive:
				t.Errorf("ESCAPE: %s MiB held for 6 s under max_memory_mb 256 and ran to its end\nstdout %q\nstderr %q", tc.mib, out, errOut)
			}
			t.Logf("exit %d stdout %q stderr tail %q", code, out, rt29Tail(errOut, 300))
		})
	}
}
