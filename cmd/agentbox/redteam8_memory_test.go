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
			rtMemoryVerdict(t, tc.ok, code, out, errOut, "", tc.name)
		})
	}
}

// A file of a scratch directory that a process maps counts twice (in the
// memory areas' tmpfs, where the overlay copied it up, and in the
// process's shared pages: smaps names the overlay's device, which the
// sampler cannot take for the tmpfs's without also taking a file of the
// lower, on-disk layer, whose pages no count holds, for one). A false kill
// errs on the safe side; README names it. Red team 8's test of it stays on
// its branch (rt8-memory, a3a1852).

// rt8XattrScript sets user extended attributes of ARGV[3] bytes each on
// files of the tmpfs at ARGV[1] until ARGV[2] MiB of values are set, then
// reports "survived", waits 3 s and reports "alive". tmpfs keeps them in
// kernel memory (a kvmalloc per value: 512 MiB of values grow the host's
// SUnreclaim by 512 MiB or more), charges them to its inode space
// (nr_inodes, by default half the host's RAM pages, a KiB each), not to
// its blocks, which are all the monitor's statfs sees.
const rt8XattrScript = `
import os, sys, time
d, want, size = sys.argv[1] + "/rt8x", int(sys.argv[2]) << 20, int(sys.argv[3])
os.makedirs(d, exist_ok=True)
val = b"\1" * size
held, f = 0, 0
while held < want:
    p = "%s/f%d" % (d, f)
    open(p, "w").close()
    for i in range(500):
        if held >= want:
            break
        os.setxattr(p, "user.a%d" % i, val)
        held += size
    f += 1
st = os.statvfs(sys.argv[1])
print("survived: %d MiB of xattrs in %s, its blocks %d MiB used" % (held >> 20, sys.argv[1], (st.f_blocks - st.f_bfree) * st.f_frsize >> 20), flush=True)
time.sleep(3)
print("alive", flush=True)
`

// TestRedteam8MonitorMissesTmpfsXattrs: with max_memory_mb 256 enforced
// by the monitor, the agent holds 512 MiB of kernel memory as user
// extended attributes of files in its private /tmp (the memory areas'
// tmpfs), and `agentbox run` exits
// 0: no process's status shows them and the tmpfs's statfs blocks do not
// grow. The run must end 137 for the memory limit, or setxattr must fail
// (ENOSPC, EPERM, ENOTSUP) before the values pass the limit; a few small
// attributes (what curl, wget or a browser set: user.xdg.origin.url) must
// work.
//
// Fixed: the memory areas' tmpfs has nr_inodes for a quarter of the limit
// (its inode space holds the attributes), and the monitor counts the
// inode space used; since red team 9 (POSIX ACLs, which no count sees), a
// setxattr of a value over 128 bytes is answered EOPNOTSUPP, so the
// control sets none.
func TestRedteam8MonitorMissesTmpfsXattrs(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt8-xattr\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	path := m.file(t, "xattr.py", rt8XattrScript)
	for _, tc := range []struct {
		name, dir, mib, size string
		ok                   bool // a legitimate use: exit 0
	}{
		{"control_no_xattrs", "/tmp", "0", "4096", true},
		{"tmp_512", "/tmp", "512", "65280", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 20*time.Second, path, tc.dir, tc.mib, tc.size)
			monitored(t, code, errOut)
			rtMemoryVerdict(t, tc.ok, code, out, errOut, "OSError", tc.name+": "+tc.mib+" MiB of xattrs")
		})
	}
}

// rt8FilesScript creates ARGV[1] empty files in /tmp: each is an inode
// and a dentry of tmpfs (about 1 KiB of slab the kernel cannot reclaim
// while the file exists) and no block, then reports "survived", waits 2 s
// and reports "alive".
const rt8FilesScript = `
import os, sys, time
n = int(sys.argv[1])
for d in range(n // 10000):
    os.mkdir("/tmp/d%d" % d)
    for i in range(10000):
        os.close(os.open("/tmp/d%d/%d" % (d, i), os.O_CREAT | os.O_WRONLY, 0o600))
st = os.statvfs("/tmp")
print("survived: %d empty files, %d MiB of blocks" % (n, (st.f_blocks - st.f_bfree) * st.f_frsize >> 20), flush=True)
time.sleep(2)
print("alive", flush=True)
`

// TestRedteam8MonitorMissesEmptyTmpfsFiles: the memory areas' tmpfs is
// sized in blocks only; its inodes (nr_inodes) default to half the host's
// RAM pages. 400,000 empty files in /tmp hold some 400 MiB of slab
// (/proc/meminfo's Slab grows by 1 KiB a file) under max_memory_mb 256,
// which no count sees, and the run exits 0. It must end 137 for the
// memory limit or have file creation refused (ENOSPC) first; a few
// thousand files (a checkout, a node_modules) must work.
//
// Fixed as the attributes are: nr_inodes, counted by the monitor.
func TestRedteam8MonitorMissesEmptyTmpfsFiles(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt8-files\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	path := m.file(t, "files.py", rt8FilesScript)
	for _, tc := range []struct {
		name, files string
		ok          bool
	}{
		{"control_20000", "20000", true},
		{"files_400000", "400000", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 20*time.Second, path, tc.files)
			monitored(t, code, errOut)
			rtMemoryVerdict(t, tc.ok, code, out, errOut, "No space left on device", tc.name+": "+tc.files+" empty files (about 1 KiB of kernel memory each)")
		})
	}
}

// rtMemoryVerdict judges a run under a monitored memory limit. A control
// (ok) must exit 0 having said "alive". An attack must end 137 for the
// memory limit before it says "alive", or fail before it says "survived"
// with refused (the refusal it meets instead, such as "OSError") in its
// stderr; what is the attack is named in escape.
func rtMemoryVerdict(t *testing.T, ok bool, code int, out, errOut, refused, escape string) {
	t.Helper()
	switch {
	case ok:
		if code != 0 || !strings.Contains(out, "alive") {
			t.Errorf("control: exit %d, stdout %q, stderr %q; want 0", code, out, errOut)
		}
	case code == 137 && strings.Contains(errOut, "memory limit exceeded") && !strings.Contains(out, "alive"):
	case refused != "" && code != 0 && !strings.Contains(out, "survived") && strings.Contains(errOut, refused):
	default:
		t.Errorf("ESCAPE: %s past max_memory_mb 256 without being killed: exit %d, want 137 for the memory limit (or %q first)\nstdout %q\nstderr %q",
			escape, code, refused, out, errOut)
	}
}
