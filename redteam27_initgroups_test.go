//go:build linux && amd64

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt27InitGroups tries, from a reduced-tier program, what reaches its init
// ($PPID) other than a signal naming a task: signals to the init's process
// group and session, and to every process (kill(-1), with SIGCONT, the
// init's parent-death signal, and SIGWINCH); joining the init's process
// group; renicing, pinning, SCHED_IDLE and idle I/O priority for each of
// the init's threads; writes to their /proc files (oom_score_adj,
// timerslack_ns, comm, autogroup, ...); a POSIX timer that signals one of
// them (SIGEV_THREAD_ID); PR_SET_PTRACER and ptrace; TIOCSCTTY and
// TIOCSPGRP. Each line of $PIDS.log is "route result errno".
const rt27InitGroups = `sleep 20 </dev/null >/dev/null 2>&1 & echo $! >>"$PIDS"
python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
ppid = int(sys.argv[1])
out = open(os.environ["PIDS"] + ".log", "a", buffering=1)
def rep(name, r):
    out.write("%s %d %d\n" % (name, r, ctypes.get_errno())); ctypes.set_errno(0)
me = os.getpid()
pg, sid = os.getpgid(ppid), os.getsid(ppid)
tids = sorted(int(t) for t in os.listdir("/proc/%d/task" % ppid))
rep("ctl-kill-self", libc.kill(me, 0))
rep("ctl-prio-self", libc.setpriority(0, 0, 1))
rep("ctl-affinity-self", libc.syscall(203, 0, 8, ctypes.byref(ctypes.c_ulong(3))))
rep("kill-init-CONT", libc.kill(ppid, 18))
rep("killpg-init", libc.kill(-pg, 19))
# A session of id 0 (a process that descends from pid 1 of a container
# without setsid) has no group to aim at: kill(-0) signals the caller.
if sid > 0:
    rep("killsid-init", libc.kill(-sid, 19))
rep("all-CONT", libc.kill(-1, 18))
rep("all-WINCH", libc.kill(-1, 28))
rep("setpgid-init", libc.setpgid(0, pg))
rep("prio-pgrp-init", libc.setpriority(1, pg, 19))
rep("prio-user", libc.setpriority(2, os.getuid(), 19))
class SigEv(ctypes.Structure):
    _fields_ = [("val", ctypes.c_long), ("signo", ctypes.c_int), ("notify", ctypes.c_int), ("tid", ctypes.c_int), ("pad", ctypes.c_int * 11)]
tm = ctypes.c_int(0)
for t in tids:
    rep("prio-tid", libc.setpriority(0, t, 19))
    rep("affinity-tid", libc.syscall(203, t, 8, ctypes.byref(ctypes.c_ulong(1))))
    rep("schedidle-tid", libc.syscall(144, t, 5, ctypes.byref(ctypes.c_int(0))))
    rep("ioprio-tid", libc.syscall(251, 1, t, 3 << 13))
    rep("timer-tid", libc.syscall(222, 1, ctypes.byref(SigEv(0, 19, 4, t)), ctypes.byref(tm)))
    for f, v in (("comm", b"x"), ("timerslack_ns", b"1000000000"), ("oom_score_adj", b"1000"), ("oom_adj", b"15"), ("autogroup", b"19"), ("sched", b"0"), ("clear_refs", b"1")):
        for p in ("/proc/%d/task/%d/%s" % (ppid, t, f), "/proc/%d/%s" % (t, f)):
            try:
                fd = os.open(p, os.O_WRONLY)
                try:
                    os.write(fd, v); out.write("write-%s 0 0\n" % f)
                finally:
                    os.close(fd)
            except OSError as e:
                out.write("write-%s -1 %d\n" % (f, e.errno))
rep("ptracer-init", libc.prctl(0x59616d61, ppid, 0, 0, 0))
rep("ptrace-init", libc.syscall(101, 0x4206, tids[-1], 0, 0))
rep("tiocsctty", libc.ioctl(2, 0x540E, 1))
rep("tiocspgrp", libc.ioctl(2, 0x5410, ctypes.byref(ctypes.c_int(pg))))
out.write("end 0 0\n")
' "$PPID" >>"$PIDS.log" 2>&1
sleep 20`

// TestRedteam27ReducedInitGroups: what is left to reach the reduced
// tier's init once seccomp refuses every call that names its kept thread:
// process-group, session and kill(-1) signals (SIGCONT among them: the
// init's parent-death signal, which must not make it think agentbox is
// gone), joining its group, scheduling and I/O priority of its threads,
// /proc writes to them, a POSIX timer aimed at one, ptrace, terminal
// ioctls. Held at the time of writing (kept as a passing test: the
// init's threads by scheduling and /proc, kill(-1) and kill(-sid) and the
// SIGCONT misfire were not covered). The attack: a call reaches the init
// ("route 0 0" for a route that is not a control), or the run does not
// end at its timeout with its tree (too early: the init took SIGCONT for
// agentbox's death; too late or a survivor: the init was stopped or
// starved). The controls: the program signals, renices and pins itself.
func TestRedteam27ReducedInitGroups(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	s := rt9Scenario{API: "exec", Script: rt27InitGroups, Timeout: 2 * time.Second}
	dir := hostDir(t)
	o := rt10RunReduced(t, dir, s)
	b, _ := os.ReadFile(filepath.Join(dir, "pids.log"))
	log := string(b)
	t.Logf("routes:\n%s\noutcome %+v", log, o)
	if !strings.Contains(log, "end 0 0") {
		t.Fatalf("the script did not run to its end")
	}
	for _, l := range strings.Split(log, "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || f[0] == "end" {
			continue
		}
		switch {
		case strings.HasPrefix(f[0], "ctl-"):
			if f[1] != "0" {
				t.Errorf("control: %s failed (%s)", f[0], l)
			}
		case strings.HasPrefix(f[0], "all-"):
			// kill(-1) reaches the program's own processes only
			// (Landlock's scope); whether it reached the init shows in
			// the run's end below.
		case f[1] != "-1":
			t.Errorf("ESCAPE: %s reached the init (%s)", f[0], l)
		}
	}
	switch {
	case len(o.Alive) > 0:
		t.Errorf("ESCAPE: %v outlived the run (%d ms)", o.Alive, o.Millis)
	case !strings.Contains(o.Err, "timed out"):
		t.Errorf("the run did not end by its timeout: %+v", o)
	case o.Millis < 1900 || o.Millis > 4000:
		t.Errorf("the run took %d ms for a timeout of %v", o.Millis, s.Timeout)
	}
}
