//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// Red team 8: the memory limit without a cgroup (rlimit+monitor), after
// the fixes for red teams 6 and 7. Run as the unprivileged test user (see
// rt6NewMonitored).

// rt8CowScript holds ARGV[1] MiB in each of ARGV[2] processes as
// private (copy-on-write) copies of pages of a /dev/shm file: each child
// maps a sparse file of the memory areas MAP_PRIVATE, writes every page
// (an anonymous copy, with a tmpfs page behind it) and punches the
// file's pages out again (fallocate PUNCH_HOLE keeps private copies), so
// that the tmpfs stays nearly empty while the copies stay. The children
// hold the memory while the parent reports "survived", waits 3 s and
// reports "alive".
const rt8CowScript = `
import ctypes, mmap, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
MiB = 1 << 20
per, procs, chunk = int(sys.argv[1]), int(sys.argv[2]), 32
kids = []
for k in range(procs):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        path = "/dev/shm/cow%d" % k
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        os.ftruncate(fd, per * MiB)  # sparse: no tmpfs pages yet
        m = mmap.mmap(fd, per * MiB, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        for c in range(0, per, chunk):
            n = min(chunk, per - c)
            for off in range(c * MiB, (c + n) * MiB, 4096):
                m[off] = 1  # copy on write
            if libc.fallocate(fd, 3, c * MiB, n * MiB) != 0:  # PUNCH_HOLE|KEEP_SIZE
                os._exit(10)
        os.close(fd)
        os.unlink(path)
        os.write(w, b"x")
        time.sleep(30)
        os._exit(0)
    os.close(w)
    if os.read(r, 1) != b"x":
        raise SystemExit("child %d failed" % k)
    kids.append(pid)
print("survived: %d MiB of private copies of /dev/shm pages" % (per * procs), flush=True)
time.sleep(3)
print("alive", flush=True)
for p in kids:
    os.kill(p, 9)
`

// rt8AnonScript is the same tree holding plain anonymous memory.
const rt8AnonScript = `
import mmap, os, sys, time
MiB = 1 << 20
per, procs = int(sys.argv[1]), int(sys.argv[2])
kids = []
for k in range(procs):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        m = mmap.mmap(-1, per * MiB, flags=mmap.MAP_PRIVATE)
        for off in range(0, per * MiB, 4096):
            m[off] = 1
        os.write(w, b"x")
        time.sleep(30)
        os._exit(0)
    os.close(w)
    if os.read(r, 1) != b"x":
        raise SystemExit("child %d failed" % k)
    kids.append(pid)
print("survived: %d MiB anonymous" % (per * procs), flush=True)
time.sleep(3)
print("alive", flush=True)
for p in kids:
    os.kill(p, 9)
`

// TestRedteam8MonitorSubtractsPrivateCopiesOfShm: the exact count
// subtracts from a process's shares the Pss of every mapping of a file of
// the memory areas, as the tmpfs's use counts those pages already. But a
// MAP_PRIVATE mapping's Pss includes its anonymous copy-on-write pages,
// which are no tmpfs page: with the file's pages punched out, 600 MiB of
// private copies under max_memory_mb 256 count as nothing. The run must
// end 137 for the memory limit, as the same memory held anonymously does;
// a legitimate private mapping of a /dev/shm file well under the limit
// must run to its end.
//
// Fixed: of a mapping of the memory areas, only its Pss less its
// anonymous pages is taken away (treeSampler.areasShares).
func TestRedteam8MonitorSubtractsPrivateCopiesOfShm(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt8-cow\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	for _, tc := range []struct {
		name, script string
		args         []string
		ok           bool // a legitimate run under the limit: exit 0
	}{
		{"control_small_cow", rt8CowScript, []string{"64", "1"}, true},
		{"control_anon_600", rt8AnonScript, []string{"200", "3"}, false},
		{"cow_punched_600", rt8CowScript, []string{"200", "3"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := m.file(t, tc.name+".py", tc.script)
			code, out, errOut := m.runArgs(t, manifest, 20*time.Second, path, tc.args...)
			monitored(t, code, errOut)
			if tc.ok {
				if code != 0 || !strings.Contains(out, "alive") {
					t.Errorf("control: exit %d, stdout %q, stderr %q; want 0", code, out, errOut)
				}
				return
			}
			if code != 137 || strings.Contains(out, "alive") || !strings.Contains(errOut, "memory limit exceeded") {
				t.Errorf("ESCAPE: %s past max_memory_mb 256 without being killed: exit %d, want 137 for the memory limit\nstdout %q\nstderr %q",
					tc.name, code, out, errOut)
			}
		})
	}
}
