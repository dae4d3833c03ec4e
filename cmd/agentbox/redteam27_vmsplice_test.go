//go:build linux

package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// rt27VmspliceScript touches TOTAL MiB of private anonymous memory 2 MiB
// at a time, each 2 MiB aligned and (mode "thp") madvise(MADV_HUGEPAGE)
// so that the kernel backs it with one transparent huge page, then
// vmsplice(2)s just the first 4 KiB of it into a pipe (16 slots a pipe,
// the default size) and munmaps the whole 2 MiB. The pipe's buffer holds a
// reference on the page, and a reference on any page of a huge page holds
// the whole 2 MiB folio: the memory leaves RssAnon (no process maps it),
// stays out of AnonHugePages, and no tmpfs holds it, yet it is not freed
// until the pipe is. Mode "plain" is the same without MADV_HUGEPAGE (4 KiB
// pages: the pipe holds 4 KiB a slot, as the README allows for pipes);
// mode "hold" keeps the mappings (the monitor sees them); mode "onepipe"
// is "thp" into a single pipe resized (F_SETPIPE_SZ) to one slot for
// each 2 MiB.
const rt27VmspliceScript = `
import ctypes, fcntl, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
libc.vmsplice.argtypes = [ctypes.c_int, ctypes.POINTER(iovec), ctypes.c_ulong, ctypes.c_uint]
libc.vmsplice.restype = ctypes.c_ssize_t
H = 2 << 20
total, mode = int(sys.argv[1]) << 20, sys.argv[2]
def meminfo(k):
    for l in open("/proc/meminfo"):
        if l.startswith(k + ":"):
            return int(l.split()[1]) >> 10
avail0 = meminfo("MemAvailable")
pipes, slots, thp = [], 16, 0
if mode == "onepipe":
    slots = total // H  # one pipe of up to 1 MiB (256 slots): fs.pipe-max-size
for i in range(total // H):
    raw = libc.mmap(None, 2 * H, 3, 0x22, -1, 0)  # RW, MAP_PRIVATE|MAP_ANONYMOUS
    if raw in (None, ctypes.c_void_p(-1).value):
        print("refused: mmap errno %d" % ctypes.get_errno(), flush=True)
        sys.exit(3)
    base = (raw + H - 1) & ~(H - 1)
    if mode in ("thp", "hold", "onepipe"):
        libc.madvise(base, H, 14)  # MADV_HUGEPAGE
    ctypes.memset(base, 0x5a, H)
    if i == 0:
        for l in open("/proc/self/smaps_rollup"):
            if l.startswith("AnonHugePages:"):
                thp = int(l.split()[1])
    if i % slots == 0:
        pipes.append(os.pipe())
        if mode == "onepipe":
            fcntl.fcntl(pipes[-1][1], 1031, slots * 4096)  # F_SETPIPE_SZ
    iov = iovec(base, 4096)
    if libc.vmsplice(pipes[-1][1], ctypes.byref(iov), 1, 0) != 4096:
        print("refused: vmsplice errno %d" % ctypes.get_errno(), flush=True)
        sys.exit(3)
    if mode != "hold":
        libc.munmap(raw, 2 * H)
    time.sleep(0.01)  # the monitor samples all along
rss = [l.split()[1] for l in open("/proc/self/status") if l.startswith("RssAnon:")][0]
print("survived: %d MiB touched, first THP %d kB, %d pipes, RssAnon %s kB, host MemAvailable -%d MiB"
      % (total >> 20, thp, len(pipes), rss, avail0 - meminfo("MemAvailable")), flush=True)
time.sleep(3)
ok = all(os.read(r, 4096) == b"\x5a" * 4096 for r, w in pipes)
held = meminfo("MemAvailable")
for r, w in pipes:
    os.close(r)
    os.close(w)
time.sleep(0.5)
print("alive, data kept %s, closing the pipes gave the host back %d MiB" % (ok, meminfo("MemAvailable") - held), flush=True)
`

// TestRedteam27MonitorMissesVmsplicedHugePages: with max_memory_mb 64
// enforced by run's monitor (no delegated memory cgroup), the agent holds
// 512 MiB (8x the limit) for as long as it likes in 16 ordinary pipes of
// the default 64 KiB size, and `agentbox run` exits 0. Each 2 MiB of
// private anonymous memory, backed by a transparent huge page
// (madvise(MADV_HUGEPAGE); THP "madvise" or "always", the common
// defaults), has 4 KiB of it vmsplice(2)d into a pipe and is then
// munmapped: the pipe buffer's page reference keeps the whole 2 MiB folio
// alive. No process maps it (out of RssAnon, Pss and AnonHugePages), no
// tmpfs holds it, and RLIMIT_DATA no longer counts it. The README's
// "kernel memory the counts do not show (socket buffers, pipes) is bounded
// only by the rlimits" does not cover it: a pipe slot is charged as one
// page (pipe-user-pages, the fd limit), but pins 512 pages, so the bound
// the rlimits give (fd limit x 16 slots x 4 KiB) is multiplied by 512:
// with 1,024 descriptors, 16 GiB from one process, past the host's
// fs.pipe-user-pages-soft too (16 slots a pipe are under it). The pages
// are the program's own data (read back intact), and closing the pipes
// gave the host's MemAvailable back 480-517 MiB in quiet runs (the
// script prints it; noisy when other work runs on the machine).
//
// Severity: medium (breaks invariant 5, "a memory bomb ends the sandbox,
// not the machine", on the monitor path; the cgroup path charges the
// anonymous folios to the cgroup whether mapped or not, so a cgroup run
// is killed).
//
// A fix would need to refuse vmsplice(2) in run's monitored sandboxes
// (seccomp, with CountedMemoryOnly: it is rare outside zero-copy
// plumbing; splice/tee of file pages pin page cache too, which for a
// tmpfs file later truncated also leaves the memory areas' count), or
// refuse MADV_HUGEPAGE and have the init set PR_SET_THP_DISABLE (which
// brings the amplification back to 1x, the documented pipe bound), or
// count pipe buffers (not visible per process).
//
// Controls: the same 512 MiB kept mapped ("hold") is stopped (RLIMIT_DATA
// refuses the mmap, or the monitor kills), 4 KiB
// pages vmspliced the same way ("plain") run (the pipes then hold 1 MiB:
// the documented pipe bound), and everyday work (rt26EverydayScript) runs.
//
// Fixed: where run's monitor counts the memory (uncountedMemory), seccomp
// refuses vmsplice(2) (EPERM, pinningCalls in
// sandbox/linux/seccomp_memory.go), so "plain" is refused too (what the
// fix costs), and the init sets PR_SET_THP_DISABLE for the program
// (disableHugePages in sandbox/linux/rlimit.go; the program may not clear
// it: thpDisableRule), so a page any other path pins (a socket buffer's,
// an I/O's) holds 4 KiB, not a 2 MiB huge page
// (TestFix27MonitorPathHugePagesOff, and in the reduced tier
// TestFix27ReducedHugePagesOff). splice(2) and sendfile(2) of a file's
// 2 MiB page-cache folios pinned them the same way: they answer EINVAL
// there (TestFix27MonitorPathPageCachePipes).
func TestRedteam27MonitorMissesVmsplicedHugePages(t *testing.T) {
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(b), "[never]") {
		t.Skipf("no transparent huge pages here: %q %v", b, err)
	}
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt27-vmsplice\nlimits: {max_memory_mb: 64, max_duration: 30s}\n")
	script := m.file(t, "vmsplice.py", rt27VmspliceScript)
	for _, tc := range []struct {
		name, mib, mode string
		want            rt26Outcome
	}{
		// What the fix costs: vmsplice is refused whole, also of small
		// pages, which the pipe bound covered.
		{"plain_4k_pages_refused", "512", "plain", rt26Refused},
		{"control_hold_mapped_stopped", "512", "hold", rt26Stopped},
		{"attack_vmsplice_thp_512", "512", "thp", rt26Stopped},
		// One pipe of 1 MiB, the largest an unprivileged program may
		// make, holds 512 MiB.
		{"attack_vmsplice_thp_one_pipe_512", "512", "onepipe", rt26Stopped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 40*time.Second, script, tc.mib, tc.mode)
			monitored(t, code, errOut)
			t.Logf("exit %d stdout %q", code, out)
			if msg := tc.want.check(code, out, errOut, 64); msg != "" {
				t.Errorf("%s: %s MiB vmspliced (%s) past max_memory_mb 64: exit %d\nstdout %q\nstderr %q",
					msg, tc.mib, tc.mode, code, out, errOut)
			}
		})
	}
	t.Run("control_everyday", func(t *testing.T) { m.everydayControl(t, manifest) })
}
