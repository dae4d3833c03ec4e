//go:build linux && amd64

package agentbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rt26InitOther tries, from a reduced-tier program, the routes to its init
// ($PPID) and the init's kept thread that a8d9d63's keeperRules do not
// list by name: the thread's /proc files (mem, environ, fd), the init's
// process group by kill(-pgid), ids with high bits set (which the kernel
// truncates to pid_t), F_SETOWN with high bits, and a CLONE_PARENT child
// (a sibling the init adopted without forking it) that sleeps past the
// timeout. Each line of $PIDS.log is "route result errno".
const rt26InitOther = `sleep 20 </dev/null >/dev/null 2>&1 & echo $! >>"$PIDS"
python3 -c '
import ctypes, os, sys, fcntl
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
ppid, sig = int(sys.argv[1]), 19
out = open(os.environ["PIDS"] + ".log", "a", buffering=1)
def rep(name, r):
    out.write("%s %d %d\n" % (name, r, ctypes.get_errno())); ctypes.set_errno(0)
me = os.getpid()
rep("self", libc.syscall(234, me, me, 0))
tids = sorted(int(t) for t in os.listdir("/proc/%d/task" % ppid))
rep("tids", len(tids))
hi = 1 << 32
for tid in tids:
    for f in ("mem", "environ", "fd", "cmdline", "stat"):
        p = "/proc/%d/task/%d/%s" % (ppid, tid, f)
        try:
            if f == "fd": n = len(os.listdir(p))
            else:
                fd = os.open(p, os.O_RDWR if f == "mem" else os.O_RDONLY); n = len(os.read(fd, 64)); os.close(fd)
            out.write("OPEN %s %d 0\n" % (f, n))
        except OSError as e:
            out.write("procfile-%s -1 %d\n" % (f, e.errno))
    l = ctypes.c_long
    rep("killhi", libc.syscall(62, l(tid + hi), sig))
    rep("tkillhi", libc.syscall(200, l(tid + hi), sig))
    rep("tgkillhi", libc.syscall(234, l(ppid), l(tid + hi), sig))
    rep("pidfdhi", libc.syscall(434, l(tid + hi), 0))
    r, w = os.pipe()
    rep("setownhi", libc.syscall(72, r, 8, l(tid + hi)))
    libc.syscall(72, r, 10, sig)
    fl = fcntl.fcntl(r, fcntl.F_GETFL); fcntl.fcntl(r, fcntl.F_SETFL, fl | os.O_ASYNC)
    os.write(w, b"x"); os.close(r); os.close(w)
try:
    pg = os.getpgid(ppid)
    rep("killpg", libc.syscall(62, -pg, sig))
except OSError as e:
    out.write("getpgid -1 %d\n" % e.errno)
# A sibling: clone(CLONE_PARENT|SIGCHLD), like fork but a child of the init.
pid = libc.syscall(56, 0x8000 | 17, 0, 0, 0, 0)
if pid == 0:
    os.execv("/bin/sleep", ["sleep", "20"])
rep("cloneparent", pid)
open(os.environ["PIDS"], "a").write("%d\n" % pid)
' "$PPID" >>"$PIDS.log" 2>&1
sleep 20`

// TestRedteam26ReducedInitOther: routes to the reduced tier's init other
// than those a8d9d63 refuses by name. Held at the time of writing (kept as
// a passing test: it covers the /proc files of the kept thread, ids with
// high bits, the init's process group, and CLONE_PARENT siblings). The
// attack: the init or its kept thread is reachable (a /proc file opens, a
// signal call returns 0) or a process outlives the run. The control: the
// program signals itself by tgkill, and reads the init's thread list.
func TestRedteam26ReducedInitOther(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("the reduced tier refuses callers that are root over the host's files")
	}
	s := rt9Scenario{API: "exec", Script: rt26InitOther, Timeout: 1500 * time.Millisecond}
	dir := hostDir(t)
	o := rt10RunReduced(t, dir, s)
	b, _ := os.ReadFile(filepath.Join(dir, "pids.log"))
	log := string(b)
	t.Logf("routes:\n%s", log)
	if !strings.Contains(log, "self 0 0") || !strings.Contains(log, "cloneparent") {
		t.Fatalf("the script did not run (control)")
	}
	for _, l := range strings.Split(log, "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[0] == "OPEN" && f[1] != "stat":
			t.Errorf("ESCAPE: the program opened the init's thread's %s", f[1])
		case f[0] == "setownhi":
			// F_SETOWN of the init's other threads succeeds: Landlock
			// refuses the SIGIO when it is sent; a stopped init shows
			// in the run's time below.
		case strings.HasSuffix(f[0], "hi") && f[1] == "0", f[0] == "killpg" && f[1] == "0":
			t.Errorf("ESCAPE: %s reached the init", f[0])
		}
	}
	if len(o.Alive) > 0 {
		t.Errorf("ESCAPE: %v outlived the run (%d ms)", o.Alive, o.Millis)
	} else if o.Millis > 4000 {
		t.Errorf("the run took %d ms past a timeout of %v", o.Millis, s.Timeout)
	}
}
