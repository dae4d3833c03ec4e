//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// rt6PageTableScript forks four processes; each maps one read-only page of
// a host file at MAPS addresses 2 MiB apart and reads it, so that every
// mapping needs a page-table page of its own: 4 KiB of kernel memory per
// mapping, up to the 65,530 mappings a process may have (about 255 MiB
// each). RLIMIT_DATA does not count read-only file mappings, the file's
// page is page cache (RssFile, which the monitor leaves out), and page
// tables (VmPTE) are in neither RssAnon nor RssShmem.
const rt6PageTableScript = `
import os, sys, time, ctypes
MAPS = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
MAP_PRIVATE, MAP_FIXED_NOREPLACE, PROT_READ = 2, 0x100000, 1
N = 4
r, w = os.pipe()
for i in range(N):
    if os.fork() == 0:
        fd = os.open("/usr/bin/python3", os.O_RDONLY)
        base = 0x200000000000 + i * (1 << 40)
        for k in range(MAPS):
            a = libc.mmap(base + k * (2 << 20), 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0)
            if a is None or a == ctypes.c_void_p(-1).value:
                raise SystemExit("mmap %d: errno %d" % (k, ctypes.get_errno()))
            ctypes.c_char.from_address(a).value
        pte = [l for l in open("/proc/self/status") if l.startswith("VmPTE")][0].split()[1]
        os.write(w, ("%s\n" % pte).encode())
        time.sleep(8)
        os._exit(0)
buf = b""
while buf.count(b"\n") < N:
    buf += os.read(r, 4096)
print("survived: page tables %d MiB in %d processes" % (sum(int(x) for x in buf.split()) >> 10, N), flush=True)
time.sleep(3)
print("alive", flush=True)
`

// TestRedteam6MonitorMissesPageTables: with max_memory_mb 256 enforced by
// the monitor, four processes hold about 1 GiB of page tables between them
// (4 x 65,000 sparse one-page mappings of a readable file) and `agentbox run`
// exits 0. With 1,024 processes allowed that is a quarter of a terabyte of
// unswappable kernel memory. The control, 2,000 mappings each (32 MiB of
// page tables in all), is legitimate and runs to its end. Where the run
// gets a cgroup (root here), the kernel charges page tables to it and the
// same attack is killed: the last case, run as root, shows that.
//
// Fixed: the monitor counts VmPTE.
func TestRedteam6MonitorMissesPageTables(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "pte.yaml", "name: rt6-pte\nlimits: {max_memory_mb: 256, max_duration: 15s}\n")
	script := m.file(t, "pte.py", rt6PageTableScript)
	for _, tc := range []struct {
		name string
		maps string
		ok   bool
	}{
		{"control_2000_maps", "2000", true},
		{"attack_65000_maps", "65000", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 20*time.Second, script, tc.maps)
			monitored(t, code, errOut)
			t.Logf("stdout %q", out)
			if tc.ok {
				if code != 0 || !strings.Contains(out, "alive") {
					t.Errorf("control: exit %d, stdout %q, stderr %q; want 0", code, out, errOut)
				}
				return
			}
			if code != 137 || strings.Contains(out, "alive") || !strings.Contains(errOut, "memory limit exceeded") {
				t.Errorf("ESCAPE: page tables past max_memory_mb 256 without being killed: exit %d, want 137 for the memory limit\nstdout %q\nstderr %q",
					code, out, errOut)
			}
		})
	}
	t.Run("control_cgroup_as_root", func(t *testing.T) {
		runEnv(t)
		a := startCLI(t, "run", "--manifest", manifest, "--", "/usr/bin/python3", script, "65000")
		code := a.wait(t, 20*time.Second)
		if !strings.Contains(a.stderr.String(), "via cgroup") {
			t.Skipf("root got no cgroup here: %q", a.stderr.String())
		}
		if code != 137 || strings.Contains(a.stdout.String(), "alive") {
			t.Errorf("control: the cgroup did not stop the page tables: exit %d\nstdout %q\nstderr %q", code, a.stdout.String(), a.stderr.String())
		}
	})
}
