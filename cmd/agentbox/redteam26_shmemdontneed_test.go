//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

// rt26DontneedScript maps TOTAL MiB of shared anonymous memory
// (MAP_SHARED|MAP_ANONYMOUS: a shmem file of the kernel's own, on no mount
// the monitor measures), writes it 16 MiB at a time and, in "zap" mode,
// drops each written chunk from its page tables with
// madvise(MADV_DONTNEED). On a shared mapping that only unmaps the pages:
// they stay in the shmem file, held in memory (the host's Shmem grows), and
// reading the mapping again gives back what was written. RssShmem and
// Pss_Shmem count mapped pages only, so the monitor sees at most one chunk.
// RLIMIT_DATA does not count shared mappings either.
const rt26DontneedScript = `
import ctypes, mmap, sys, time
total, zap, shrink = int(sys.argv[1]) << 20, sys.argv[2] == "zap", sys.argv[2] == "shrink"
chunk = 16 << 20
def shmem():
    for l in open("/proc/meminfo"):
        if l.startswith("Shmem:"):
            return int(l.split()[1]) >> 10
before = shmem()
m = mmap.mmap(-1, total, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
for start in range(0, total, chunk):
    for off in range(start, start + chunk, 4096):
        m[off] = 0x5a
    if zap or shrink:
        m.madvise(mmap.MADV_DONTNEED, start, chunk)
    time.sleep(0.05)  # the monitor samples between chunks
kept = all(m[off] == 0x5a for off in range(0, total, chunk))
if zap:
    m.madvise(mmap.MADV_DONTNEED, 0, total)
if shrink:
    # Unmap all but the first page: the shmem object keeps its pages.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    if libc.munmap(addr + 4096, total - 4096) != 0:
        raise SystemExit("munmap: errno %d" % ctypes.get_errno())
rss = [l.split()[1] for l in open("/proc/self/status") if l.startswith("RssShmem:")][0]
print("survived: %d MiB written, data kept %s, RssShmem %s kB, host Shmem +%d MiB" % (total >> 20, kept, rss, shmem() - before), flush=True)
time.sleep(3)
print("alive", flush=True)
`

// TestRedteam26MonitorMissesZappedSharedAnonymous: with max_memory_mb 64
// enforced by run's monitor (an unprivileged user without a delegated
// cgroup), the agent holds 512 MiB (8x the limit) of shared anonymous
// memory and `agentbox run` exits 0. It maps MAP_SHARED|MAP_ANONYMOUS,
// writes it, and calls madvise(MADV_DONTNEED) on what it wrote: for a
// shared mapping that only removes the page-table entries, while the pages
// stay in the mapping's shmem object (host /proc/meminfo Shmem grows by
// the full amount and the data reads back intact). The monitor sums
// RssAnon+RssShmem (then Pss_Anon+Pss_Shmem), which count mapped pages
// only, and RLIMIT_DATA does not count shared mappings, so nothing bounds
// it: a 64 MiB sandbox can pin gigabytes of unswappable-by-limit memory
// (one process, no special syscall, no memfd/SysV, which are refused for
// exactly this reason). The memory is freed when the process ends, so it
// lasts as long as the run does (max_duration).
//
// Severity: medium (breaks invariant 5, "a memory bomb ends the sandbox,
// not the machine", on the monitor path; the cgroup path charges shmem).
//
// A fix would need to count shared anonymous mappings by their size
// rather than their resident pages (e.g. the VMA sizes of MAP_SHARED
// anonymous "/dev/zero (deleted)" / "[anon_shmem]" mappings from smaps,
// or cap them with RLIMIT_AS), or refuse MAP_SHARED|MAP_ANONYMOUS
// mappings in run's monitored sandboxes (seccomp on mmap flags; libraries
// fall back to /dev/shm files, which the memory areas' tmpfs counts), or
// count MADV_DONTNEED/MADV_FREE on shared mappings.
//
// Controls: the same 512 MiB written without the madvise is killed (137,
// "memory limit exceeded"), and 32 MiB used the same way runs to its end.
func TestRedteam26MonitorMissesZappedSharedAnonymous(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt26-dontneed\nlimits: {max_memory_mb: 64, max_duration: 30s}\n")
	script := m.file(t, "dontneed.py", rt26DontneedScript)
	for _, tc := range []struct {
		name, mib, mode string
		killed          bool
	}{
		{"control_small", "32", "zap", false},
		{"control_mapped_killed", "512", "keep", true},
		{"attack_dontneed_512", "512", "zap", true},
		// The same memory, left in the shmem object after all but one page
		// of its mapping is unmapped (written 16 MiB at a time with
		// MADV_DONTNEED first): a count of the mappings' sizes would miss
		// it too.
		{"attack_dontneed_then_unmap_512", "512", "shrink", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 40*time.Second, script, tc.mib, tc.mode)
			monitored(t, code, errOut)
			t.Logf("exit %d stdout %q", code, out)
			if !tc.killed {
				if code != 0 || !strings.Contains(out, "alive") {
					t.Errorf("control: exit %d, stdout %q, stderr %q; want 0", code, out, errOut)
				}
				return
			}
			if code != 137 || strings.Contains(out, "alive") || !strings.Contains(errOut, "memory limit exceeded") {
				t.Errorf("ESCAPE: %s MiB of shared anonymous memory held past max_memory_mb 64 without being killed: exit %d, want 137\nstdout %q\nstderr %q",
					tc.mib, code, out, errOut)
			}
		})
	}
	// Where the run gets a memory cgroup (root here), the kernel charges
	// the shmem pages to it whether mapped or not: the same attack ends 137.
	t.Run("control_cgroup_as_root", func(t *testing.T) {
		runEnv(t)
		a := startCLI(t, "run", "--manifest", manifest, "--", "/usr/bin/python3", script, "512", "zap")
		code := a.wait(t, 40*time.Second)
		if !strings.Contains(a.stderr.String(), "via cgroup") {
			t.Skipf("no cgroup here: %q", a.stderr.String())
		}
		if code != 137 || strings.Contains(a.stdout.String(), "alive") {
			t.Errorf("control: the cgroup did not stop the zapped shared memory: exit %d\nstdout %q\nstderr %q", code, a.stdout.String(), a.stderr.String())
		}
	})
}
