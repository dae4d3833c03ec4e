//go:build linux

package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rt26DontneedScript maps TOTAL MiB of shared memory from SOURCE: "anon"
// (MAP_SHARED|MAP_ANONYMOUS: a shmem file of the kernel's own, on no mount
// the monitor measures), "zero" (a MAP_SHARED mapping of /dev/zero, opened
// for writing: the kernel gives it the same kind of shmem file), "zero_ro"
// (the same, opened and mapped for reading only, read rather than
// written) or "shm" (a file in /dev/shm, which the monitor counts in its
// tmpfs), writes it 16 MiB at a time and, in "zap" mode, drops each
// written chunk from its page tables with madvise(MADV_DONTNEED). On a
// shared mapping that only unmaps the pages: they stay in the shmem file,
// held in memory (the host's Shmem grows), and reading the mapping again
// gives back what was written. RssShmem and Pss_Shmem count mapped pages
// only, so the monitor sees at most one chunk. RLIMIT_DATA does not count
// shared mappings either. A mapping refused prints "refused:" and exits 3.
const rt26DontneedScript = `
import ctypes, mmap, os, sys, time
total, zap, shrink = int(sys.argv[1]) << 20, sys.argv[2] == "zap", sys.argv[2] == "shrink"
source = sys.argv[3]
chunk = 16 << 20
def shmem():
    for l in open("/proc/meminfo"):
        if l.startswith("Shmem:"):
            return int(l.split()[1]) >> 10
before = shmem()
readonly = source == "zero_ro"
prot = mmap.PROT_READ if readonly else mmap.PROT_READ | mmap.PROT_WRITE
try:
    if source == "anon":
        m = mmap.mmap(-1, total, flags=mmap.MAP_SHARED, prot=prot)
    elif source == "shm":
        fd = os.open("/dev/shm/rt26", os.O_RDWR | os.O_CREAT, 0o600)
        os.ftruncate(fd, total)
        m = mmap.mmap(fd, total, flags=mmap.MAP_SHARED, prot=prot)
    else:
        fd = os.open("/dev/zero", os.O_RDONLY if readonly else os.O_RDWR)
        m = mmap.mmap(fd, total, flags=mmap.MAP_SHARED, prot=prot)
except OSError as e:
    print("refused: %s mapping: %s" % (source, e), flush=True)
    sys.exit(3)
for start in range(0, total, chunk):
    for off in range(start, start + chunk, 4096):
        if readonly:
            m[off]
        else:
            m[off] = 0x5a
    if zap or shrink:
        m.madvise(mmap.MADV_DONTNEED, start, chunk)
    time.sleep(0.05)  # the monitor samples between chunks
kept = readonly or all(m[off] == 0x5a for off in range(0, total, chunk))
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

// rt26EverydayScript is ordinary work that shares or maps memory, which
// the fix must leave working under the monitor: a multiprocessing pool
// and a shared Value (semaphores and arenas in /dev/shm), sqlite in WAL
// mode (its -shm file mapped shared), reading /dev/zero, private
// anonymous mappings, and git.
const rt26EverydayScript = `
import mmap, multiprocessing as mp, os, sqlite3, subprocess, tempfile
def square(x):
    return x * x
def bump(v):
    with v.get_lock():
        v.value += 1
if __name__ == "__main__":
    with mp.Pool(2) as p:
        assert p.map(square, range(20)) == [x * x for x in range(20)]
    v = mp.Value("i", 0)
    ps = [mp.Process(target=bump, args=(v,)) for _ in range(3)]
    [p.start() for p in ps]
    [p.join() for p in ps]
    assert v.value == 3, v.value
    d = tempfile.mkdtemp()
    db = sqlite3.connect(os.path.join(d, "t.db"))
    assert db.execute("pragma journal_mode=wal").fetchone()[0] == "wal"
    db.execute("create table t (x)")
    db.executemany("insert into t values (?)", [(i,) for i in range(1000)])
    db.commit()
    assert db.execute("select count(*) from t").fetchone()[0] == 1000
    with open("/dev/zero", "rb") as f:
        assert f.read(1 << 20) == bytes(1 << 20)
    m = mmap.mmap(-1, 8 << 20, flags=mmap.MAP_PRIVATE)
    m[0] = 1
    if os.path.exists("/usr/bin/git"):
        g = ["git", "-C", d, "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", d], check=True)
        open(os.path.join(d, "f"), "w").write("x")
        subprocess.run(g + ["add", "f"], check=True)
        subprocess.run(g + ["commit", "-qm", "m"], check=True)
        subprocess.run(g + ["gc", "-q"], check=True)
    print("survived: everyday work", flush=True)
    print("alive", flush=True)
`

// everydayControl runs rt26EverydayScript under manifest (max_memory_mb
// 64 on the monitor path): the legitimate work beside a memory attack,
// which the defence against it must leave running.
func (m *rt6Monitored) everydayControl(t *testing.T, manifest string) {
	everyday := m.file(t, "everyday.py", rt26EverydayScript)
	code, out, errOut := m.runArgs(t, manifest, 40*time.Second, everyday)
	monitored(t, code, errOut)
	if msg := rt26Alive.check(code, out, errOut, 64); msg != "" {
		t.Errorf("%s: exit %d\nstdout %q\nstderr %q", msg, code, out, errOut)
	}
}

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
// Controls: the same 512 MiB in a /dev/shm file, written and dropped
// the same way, is killed (137, "memory limit exceeded": the tmpfs counts
// its pages whether mapped or not), and 32 MiB of it runs to its end.
//
// Fixed: where run's monitor counts the memory (uncountedMemory), seccomp
// refuses mmap of MAP_SHARED|MAP_ANONYMOUS (EPERM, sharedAnonRule in
// sandbox/linux/seccomp.go), and the sandbox's /dev/zero is /dev/full,
// which reads as zeros but cannot be mapped (ENODEV, zeroDevice in
// sandbox/linux/mount.go): a MAP_SHARED mapping of /dev/zero made the same
// hidden shmem object (attack_devzero_*).
func TestRedteam26MonitorMissesZappedSharedAnonymous(t *testing.T) {
	m := rt6NewMonitored(t)
	manifest := m.file(t, "mem.yaml", "name: rt26-dontneed\nlimits: {max_memory_mb: 64, max_duration: 30s}\n")
	script := m.file(t, "dontneed.py", rt26DontneedScript)
	for _, tc := range []struct {
		name, mib, mode, source string
		want                    rt26Outcome
	}{
		{"control_small", "32", "zap", "shm", rt26Alive},
		{"control_shm_zapped_killed", "512", "zap", "shm", rt26Killed},
		// What the fix costs: a small shared anonymous mapping is refused
		// too (libraries use /dev/shm files for memory they share).
		{"small_shared_anonymous_refused", "32", "zap", "anon", rt26Refused},
		{"attack_dontneed_512", "512", "zap", "anon", rt26Stopped},
		// The same memory, left in the shmem object after all but one page
		// of its mapping is unmapped (written 16 MiB at a time with
		// MADV_DONTNEED first): a count of the mappings' sizes would miss
		// it too.
		{"attack_dontneed_then_unmap_512", "512", "shrink", "anon", rt26Stopped},
		// A MAP_SHARED mapping of /dev/zero is shared anonymous memory
		// made by the device (mmap_zero, shmem_zero_setup), not by flags
		// seccomp sees.
		{"attack_devzero_dontneed_512", "512", "zap", "zero", rt26Stopped},
		{"attack_devzero_then_unmap_512", "512", "shrink", "zero", rt26Stopped},
		// Opened and mapped for reading only, read faults on it map the
		// zero page on the kernels tried (no shmem grows): bounded either
		// way, refused where /dev/zero is /dev/full.
		{"attack_devzero_readonly_512", "512", "zap", "zero_ro", rt26Bounded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := m.runArgs(t, manifest, 40*time.Second, script, tc.mib, tc.mode, tc.source)
			monitored(t, code, errOut)
			t.Logf("exit %d stdout %q", code, out)
			if msg := tc.want.check(code, out, errOut, 64); msg != "" {
				t.Errorf("%s: %s MiB of %s shared memory past max_memory_mb 64: exit %d\nstdout %q\nstderr %q",
					msg, tc.mib, tc.source, code, out, errOut)
			}
		})
	}
	t.Run("control_everyday", func(t *testing.T) { m.everydayControl(t, manifest) })
	// Where the run gets a memory cgroup (root here), the kernel charges
	// the shmem pages to it whether mapped or not: the same attack ends 137.
	t.Run("control_cgroup_as_root", func(t *testing.T) {
		runEnv(t)
		a := startCLI(t, "run", "--manifest", manifest, "--", "/usr/bin/python3", script, "512", "zap", "anon")
		code := a.wait(t, 40*time.Second)
		if !strings.Contains(a.stderr.String(), "via cgroup") {
			t.Skipf("no cgroup here: %q", a.stderr.String())
		}
		if code != 137 || strings.Contains(a.stdout.String(), "alive") {
			t.Errorf("control: the cgroup did not stop the zapped shared memory: exit %d\nstdout %q\nstderr %q", code, a.stdout.String(), a.stderr.String())
		}
	})
}

// rt26Outcome is what a run of rt26DontneedScript must come to.
type rt26Outcome int

const (
	rt26Alive   rt26Outcome = iota // runs to its end, exit 0
	rt26Killed                     // the monitor kills it: 137, memory limit exceeded
	rt26Refused                    // the mapping is refused: exit 3, "refused:"
	rt26Stopped                    // killed or refused
	rt26Bounded                    // stopped, or ran while the host's Shmem grew less than the limit
)

var rt26HostShmem = regexp.MustCompile(`host Shmem \+(-?\d+) MiB`)

// check returns "" when a run's exit status and output are what o wants,
// otherwise what went wrong ("ESCAPE" when the memory was held).
func (o rt26Outcome) check(code int, out, errOut string, limitMiB int) string {
	killed := code == 137 && !strings.Contains(out, "alive") && strings.Contains(errOut, "memory limit exceeded")
	refused := code == 3 && strings.Contains(out, "refused:") && !strings.Contains(out, "survived")
	alive := code == 0 && strings.Contains(out, "alive")
	switch {
	case o == rt26Alive && !alive:
		return "control: want exit 0"
	case o == rt26Killed && !killed:
		return "control: want 137 for the memory limit"
	case o == rt26Refused && !refused:
		return "want the mapping refused (exit 3)"
	case o == rt26Stopped && !killed && !refused:
		return "ESCAPE: held without being killed or refused"
	case o == rt26Bounded && !killed && !refused:
		mm := rt26HostShmem.FindStringSubmatch(out)
		if !alive || mm == nil {
			return "want it killed, refused, or run to its end"
		}
		if grew, _ := strconv.Atoi(mm[1]); grew >= limitMiB {
			return "ESCAPE: host Shmem grew past the limit without a kill or a refusal"
		}
	}
	return ""
}
